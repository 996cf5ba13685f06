"""Gemini CLI, headless: `gemini --output-format stream-json`, the prompt on stdin
(not a terminal: Gemini runs headless), later `--resume=SESSION`.

Its stream: `init{session_id}`, `message` (the assistant's in `delta` pieces),
`tool_use{tool_name, parameters}`, `tool_result`, `result{status}`, `error`.
It reports no final text of its own: the words after its last step are it."""

from agents.adapters.cli import CliAdapter, HostedRun
from agents.adapters.events import Event, Failure, Said, Session, ToolCall, json_line
from chats.agent_kinds import Takes
from chats.models import Chat

APPROVAL_MODES = {"default", "auto_edit", "yolo", "plan"}
DEFAULT_APPROVAL = "default"


class GeminiAgent(CliAdapter):
    kind = Chat.Agent.GEMINI
    program = "gemini"
    bin_variable = "GEMINI_BIN"
    providers = ("GEMINI_*", "GOOGLE_*")
    takes = Takes(between_steps=True, as_finished=True, runs_without_folder=False)

    def argv(self, run: HostedRun) -> list[str]:
        chat = run.chat
        mode = chat.permission_mode if chat.permission_mode in APPROVAL_MODES else DEFAULT_APPROVAL
        # --skip-trust: a headless run cannot answer the trust-this-folder question.
        # The prompt comes on stdin; NAME=VALUE: no value can be read as an option.
        argv = [run.binary, "--output-format", "stream-json"]
        argv += [f"--approval-mode={mode}", "--skip-trust"]
        if chat.model:
            argv += [f"--model={chat.model}"]
        if chat.session_id:
            argv += [f"--resume={chat.session_id}"]
        return argv + run.setup.argv_extra

    def parse(self, line: str) -> list[Event]:
        return parse_gemini_line(line)


def parse_gemini_line(line: str) -> list[Event]:
    data = json_line(line)
    if data is None:
        return []
    kind = data.get("type")
    if kind == "init" and data.get("session_id"):
        return [Session(data["session_id"])]
    if kind == "message" and data.get("role") == "assistant" and data.get("content"):
        return [Said(data["content"], delta=bool(data.get("delta")))]
    if kind == "tool_use":
        return [ToolCall(data.get("tool_name", "tool"), data.get("parameters") or {})]
    if kind == "result" and data.get("status") not in (None, "success"):
        return [Failure(f"gemini reported an error: {error_text(data)}")]
    if kind == "error":
        return [Failure(f"gemini reported an error: {error_text(data)}")]
    return []


def error_text(data: dict) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or data.get("message") or data.get("status") or "unknown error")
