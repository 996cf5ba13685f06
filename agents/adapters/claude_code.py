"""Claude Code, headless: `claude -p --output-format stream-json --verbose`, the
prompt on stdin.

Its stream: `system/init` (session id, MCP servers and their status),
`system/api_retry` while it retries the model, `stream_event` lines (with
--include-partial-messages: the model's text as `text_delta` pieces), `assistant`
messages (each text or tool_use block whole, right after its deltas), `user` tool
results, and one `result` (final text, `is_error`, cost). An error result still says
`subtype: "success"`: `is_error` is what counts. A model call it gave up on comes as
an `assistant` message of its own making (`is_api_error_message`, "API Error: 500 …"):
not the agent's words, and the `result` after it says `is_error`."""

import os

from agents.adapters.cli import CliAdapter, HostedRun
from agents.adapters.events import (
    Cost,
    Event,
    Failure,
    Final,
    Notice,
    Said,
    Session,
    ToolCall,
    ToolDone,
    ToolsMissing,
    Trouble,
    json_line,
)
from agents.attach import claude_code as attach_claude_code
from agents.hooks.clis import CLIS as HOOK_CLIS
from chats.models import Chat

BYPASS_MODES = {"bypassPermissions"}
# An MCP server still connecting is not missing (yet); any other status but connected is.
MCP_FINE = {"connected", "pending"}


class ClaudeCodeAgent(CliAdapter):
    kind = Chat.Agent.CLAUDE_CODE
    session_gone = "No conversation found with session ID"
    model_url_variable = "ANTHROPIC_BASE_URL"
    default_model_host = "api.anthropic.com"
    # Its provider's and its own settings (Claude Code reads some without a prefix).
    providers = (
        "ANTHROPIC_*", "CLAUDE_*", "AWS_*", "DISABLE_*", "ENABLE_TOOL_SEARCH", "IS_SANDBOX",
        "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
        "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS",
    )  # fmt: skip
    # Its attach files (agents.attach) and its hooks' event names and answers (agents.hooks).
    attach = attach_claude_code
    hooks = HOOK_CLIS["claude-code"]

    def argv(self, run: HostedRun) -> list[str]:
        chat = run.chat
        mode = self.permission_mode(chat)
        argv = [run.binary, "-p", "--output-format", "stream-json", "--verbose"]
        # Its tokens as events too: a model that streams shows progress (TURN_STALL_SECONDS).
        argv += ["--include-partial-messages"]
        # The attach config adds --mcp-config, --settings (hooks) and --allowedTools: headless
        # Claude refuses an MCP tool that is not listed there (permission_denials).
        # NAME=VALUE: no value (a model, a session id) can be read as an option.
        argv += [f"--permission-mode={mode}"]
        if chat.model:
            argv += [f"--model={chat.model}"]
        if chat.session_id:
            argv += [f"--resume={chat.session_id}"]
        # The prompt comes on stdin (CliAdapter.stdin): never on the command line.
        return [*argv, *run.setup.argv_extra]

    def env(self, run: HostedRun) -> dict[str, str]:
        env = {"DISABLE_AUTOUPDATER": "1"}
        # As root, Claude refuses the bypass modes unless told it runs in a sandbox: the
        # person chose that mode for this chat, and the runner's machine is that sandbox.
        if run.chat.permission_mode in BYPASS_MODES and os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"
        return env

    def parse(self, line: str) -> list[Event]:
        return parse_claude_line(line)


def parse_claude_line(line: str) -> list[Event]:
    data = json_line(line)
    if data is None:
        return []
    kind = data.get("type")
    if kind == "system" and data.get("subtype") == "init":
        return init_events(data)
    if kind == "system" and data.get("subtype") == "api_retry":
        return [Trouble(f"claude is retrying the model: {retry_text(data)}", retrying=True)]
    if kind == "stream_event":
        return stream_events(data)
    if kind == "assistant" and data.get("is_api_error_message"):
        return [api_error(data)]
    if kind == "assistant":
        return message_events(data.get("message") or {})
    if kind == "user":
        content = (data.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else []
        return [
            ToolDone() for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
    if kind == "result":
        return result_events(data)
    return []


def init_events(data: dict) -> list[Event]:
    events: list[Event] = [Session(data["session_id"])] if data.get("session_id") else []
    if not isinstance(data.get("mcp_servers"), list):
        return events  # this version does not say
    servers = {s.get("name"): s.get("status") for s in data["mcp_servers"] if isinstance(s, dict)}
    if "crosstalk" not in servers:
        events.append(ToolsMissing("the crosstalk MCP server was not loaded"))
    elif servers["crosstalk"] not in MCP_FINE:
        status = servers["crosstalk"] or "unknown"
        events.append(ToolsMissing(f"the crosstalk MCP server did not connect ({status})"))
    return events


def retry_text(data: dict) -> str:
    """The error it retries, the same at every attempt: one note counts them."""
    error, status = data.get("error"), data.get("error_status")
    said = " ".join(str(part) for part in (error, status) if part) or "no answer"
    most = data.get("max_retries")
    return f"{said} (up to {most} retries)" if most else said


def stream_events(data: dict) -> list[Event]:
    """The model's words as they come (a subagent's, with a parent_tool_use_id, are left
    out: they show whole, as its messages come)."""
    event = data.get("event") or {}
    delta = event.get("delta") or {}
    if data.get("parent_tool_use_id") or event.get("type") != "content_block_delta":
        return []
    if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
        return [Said(delta["text"], delta=True)] if delta["text"] else []
    return []


def api_error(data: dict) -> Trouble:
    """A model call it gave up on: the reason should the turn fail (its `result` says
    so and the failure shows it), never an answer."""
    texts = [b.get("text", "") for b in (data.get("message") or {}).get("content") or []]
    said = " ".join(t.strip() for t in texts if isinstance(t, str) and t.strip())
    status = data.get("api_error_status")
    detail = said or (f"API error {status}" if status else str(data.get("error")))
    return Trouble(f"claude reported an error: {detail}", note=False)


def message_events(message: dict) -> list[Event]:
    events: list[Event] = []
    for block in message.get("content") or []:
        if block.get("type") == "text" and block.get("text", "").strip():
            events.append(Said(block["text"]))
        elif block.get("type") == "tool_use":
            events.append(ToolCall(block.get("name", "tool"), block.get("input") or {}))
    return events


def result_events(data: dict) -> list[Event]:
    events: list[Event] = [Session(data["session_id"])] if data.get("session_id") else []
    if isinstance(data.get("total_cost_usd"), int | float):
        events.append(Cost(float(data["total_cost_usd"])))
    text = data.get("result") if isinstance(data.get("result"), str) else ""
    if data.get("is_error"):
        status = data.get("api_error_status")
        detail = text or (f"API error {status}" if status else data.get("subtype", "error"))
        events.append(Failure(f"claude reported an error: {detail}"))
    else:
        events.append(Final(text))
    denied = [d.get("tool_name", "?") for d in data.get("permission_denials") or []]
    if denied:
        events.append(Notice(f"Claude was refused: {', '.join(denied)} (permission mode)."))
    return events
