"""Gemini CLI, headless: `gemini --output-format stream-json`, the prompt on stdin
(not a terminal: Gemini runs headless), later `--resume=SESSION`.

Its stream: `init{session_id}`, `message` (the assistant's in `delta` pieces),
`tool_use{tool_name, parameters}`, `tool_result`, `error{severity, message}`
(a warning such as "Agent execution blocked" when its AfterAgent hook hands it a
message, after which it carries on: a note, not a failure), `result{status}`.
It reports no final text of its own: the words after its last step are it.
Whether the turn failed is decided by `result` and the exit status."""

import json

from agents.adapters.cli import CliAdapter, HostedRun
from agents.adapters.events import (
    Event,
    Failure,
    Notice,
    Said,
    Session,
    ToolCall,
    ToolDone,
    Trouble,
    json_line,
    shorten,
)
from agents.adapters.setup import HostedSetup
from agents.attach import AttachConfig
from agents.attach import gemini as attach_gemini
from agents.attach.common import as_json
from agents.hooks.clis import CLIS as HOOK_CLIS
from agents.process import ProcessOutcome
from agents.safe_files import Folder
from chats.models import Chat

# On stderr when it ignores the settings Crosstalk wrote (its tools and hooks with them).
SETTINGS_SKIPPED = "Skipping system settings file"
# The settings file Crosstalk writes for a hosted turn (GEMINI_CLI_SYSTEM_SETTINGS_PATH).
SETTINGS_FILE = "settings.json"
# A warning's note keeps its first line only (a blocked agent's carries a whole message).
NOTE_CHARS = 300


class GeminiAgent(CliAdapter):
    kind = Chat.Agent.GEMINI
    session_gone = "Error resuming session"
    model_url_variable = "GOOGLE_GEMINI_BASE_URL"
    default_model_host = "generativelanguage.googleapis.com"
    providers = ("GEMINI_*", "GOOGLE_*")
    # Its attach files (agents.attach) and its hooks' event names and answers (agents.hooks).
    attach = attach_gemini
    hooks = HOOK_CLIS["gemini"]

    def argv(self, run: HostedRun) -> list[str]:
        chat = run.chat
        mode = self.permission_mode(chat)
        # --skip-trust: a headless run cannot answer the trust-this-folder question.
        # The prompt comes on stdin; NAME=VALUE: no value can be read as an option.
        argv = [run.binary, "--output-format", "stream-json"]
        argv += [f"--approval-mode={mode}", "--skip-trust"]
        if chat.model:
            argv += [f"--model={chat.model}"]
        if chat.session_id:
            argv += [f"--resume={chat.session_id}"]
        return argv + run.setup.argv_extra

    def prepare_home(self, folder: Folder, config: AttachConfig, setup: HostedSetup) -> None:
        """The account's own login: which kind it is goes in the settings Crosstalk writes
        (the operator's settings.json, which says so for a lent login, is not copied)."""
        if setup.logins.lent:
            return
        auth = "gemini-api-key" if setup.logins.api_key else "oauth-personal"
        written = json.loads(config.files.get(SETTINGS_FILE, "{}"))
        written.setdefault("security", {}).setdefault("auth", {})["selectedType"] = auth
        config.files[SETTINGS_FILE] = as_json(written)
        setup.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = str(folder.path / SETTINGS_FILE)

    def parse(self, line: str) -> list[Event]:
        return parse_gemini_line(line)

    def missing_tools(self, outcome: ProcessOutcome) -> str:
        said = f"{outcome.stderr_head}\n{outcome.stderr_tail}".splitlines()
        skipped = next((line.strip() for line in said if SETTINGS_SKIPPED in line), "")
        return f"gemini ignored its settings: {shorten(skipped, NOTE_CHARS)}" if skipped else ""


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
    if kind == "tool_result":
        return [ToolDone()]
    if kind == "result" and data.get("status") not in (None, "success"):
        return [Failure(f"gemini reported an error: {error_text(data)}")]
    if kind == "error":
        return error_events(data)
    return []


def error_events(data: dict) -> list[Event]:
    first = next((line for line in error_text(data).splitlines() if line.strip()), "")
    if data.get("severity") == "warning":
        return [Notice(shorten(f"gemini: {first.strip()}", NOTE_CHARS))]
    return [Trouble(shorten(f"gemini reported an error: {first.strip()}", NOTE_CHARS))]


def error_text(data: dict) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or data.get("message") or data.get("status") or "unknown error")
