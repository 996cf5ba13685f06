"""Claude Code, headless: `claude -p --output-format stream-json --verbose`, the
prompt on stdin.

Its stream: `system/init` (session id, MCP servers and their status),
`system/api_retry` while it retries the model, `assistant` messages (text and
tool_use blocks), `user` tool results, and one `result` (final text, `is_error`,
cost). An error result still says `subtype: "success"`: `is_error` is what counts."""

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
from chats.agent_kinds import Takes
from chats.models import Chat
from peers.hooks.clis import CLIS as HOOK_CLIS

BYPASS_MODES = {"bypassPermissions"}
# An MCP server still connecting is not missing (yet); any other status but connected is.
MCP_FINE = {"connected", "pending"}


class ClaudeCodeAgent(CliAdapter):
    kind = Chat.Agent.CLAUDE_CODE
    program = "claude"
    bin_variable = "CLAUDE_BIN"
    session_gone = "No conversation found with session ID"
    model_url_variable = "ANTHROPIC_BASE_URL"
    default_model_host = "api.anthropic.com"
    # Its provider's and its own settings (Claude Code reads some without a prefix).
    providers = (
        "ANTHROPIC_*", "CLAUDE_*", "AWS_*", "DISABLE_*", "ENABLE_TOOL_SEARCH", "IS_SANDBOX",
        "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
        "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS",
    )  # fmt: skip
    takes = Takes(between_steps=True, runs_without_folder=False)
    permission_modes = ("default", "acceptEdits", "plan", "bypassPermissions")
    default_permission_mode = "default"
    # Its attach files (agents.attach) and its hooks' event names and answers (peers.hooks).
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
    error = data.get("error") or data.get("error_status") or "no answer"
    attempt, most = data.get("attempt"), data.get("max_retries")
    return f"{error} (attempt {attempt} of {most})" if attempt and most else str(error)


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
