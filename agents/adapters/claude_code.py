"""Claude Code, headless: `claude -p --output-format stream-json --verbose`, the
prompt on stdin.

Its stream: `system/init` (session id, MCP servers and their status),
`assistant` messages (text and tool_use blocks), `user` tool results, and one
`result` (final text, `is_error`, cost). An error result still says
`subtype: "success"`: `is_error` is what counts."""

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
    json_line,
)
from chats.agent_kinds import Takes
from chats.models import Chat

BYPASS_MODES = {"bypassPermissions"}
DEFAULT_MODE = "default"


class ClaudeCodeAgent(CliAdapter):
    kind = Chat.Agent.CLAUDE_CODE
    program = "claude"
    bin_variable = "CLAUDE_BIN"
    # Its provider's and its own settings (Claude Code reads some without a prefix).
    providers = (
        "ANTHROPIC_*", "CLAUDE_*", "AWS_*", "DISABLE_*", "ENABLE_TOOL_SEARCH", "IS_SANDBOX",
        "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
        "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS",
    )  # fmt: skip
    takes = Takes(between_steps=True, as_finished=True, runs_without_folder=False)

    def argv(self, run: HostedRun) -> list[str]:
        chat = run.chat
        mode = chat.permission_mode or DEFAULT_MODE
        argv = [run.binary, "-p", "--output-format", "stream-json", "--verbose"]
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
    if kind == "assistant":
        return message_events(data.get("message") or {})
    if kind == "result":
        return result_events(data)
    return []


def init_events(data: dict) -> list[Event]:
    events: list[Event] = [Session(data["session_id"])] if data.get("session_id") else []
    for server in data.get("mcp_servers") or []:
        if server.get("name") == "crosstalk" and server.get("status") != "connected":
            status = server.get("status", "unknown")
            events.append(Notice(f"The crosstalk MCP server did not connect ({status})."))
    return events


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
