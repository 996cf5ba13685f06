"""Claude Code: `.mcp.json` and `.claude/settings.local.json` (attached), or
`mcp.json` and `settings.json` loaded with --mcp-config / --settings (hosted).

Hooks are native http hooks, except SessionStart: Claude Code ignores http
hooks there, so it runs the hook command."""

from agents.attach.common import (
    HOOK_TIMEOUT,
    SERVER,
    TOOLS,
    AttachConfig,
    Target,
    as_json,
    hook_command,
)

CLI = "claude-code"
HTTP_EVENTS = ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd")
ALLOWED_TOOLS = [f"mcp__{SERVER}__{tool}" for tool in TOOLS]


def mcp_config(target: Target) -> dict:
    server = {
        "type": "http",
        "url": target.mcp_url,
        "headers": {"Authorization": f"Bearer {target.key}"},
    }
    return {"mcpServers": {SERVER: server}}


def http_hook(target: Target) -> dict:
    return {
        "type": "http",
        "url": target.hook_url(CLI),
        "headers": {"Authorization": "Bearer $CROSSTALK_KEY"},
        "allowedEnvVars": ["CROSSTALK_KEY"],
        "timeout": HOOK_TIMEOUT,
    }


def hooks(target: Target) -> dict:
    command = {"type": "command", "command": hook_command(CLI), "timeout": HOOK_TIMEOUT}
    table = {"SessionStart": [{"hooks": [command]}]}
    for event in HTTP_EVENTS:
        group = {"hooks": [http_hook(target)]}
        if event == "PostToolUse":
            group = {"matcher": "*", **group}
        table[event] = [group]
    return table


def settings(target: Target) -> dict:
    return {
        # The hooks read these; a session started in the folder needs nothing else.
        "env": target.env,
        "enabledMcpjsonServers": [SERVER],
        "permissions": {"allow": ALLOWED_TOOLS},
        "allowedHttpHookUrls": [f"{target.base_url}/api/v1/agent/hooks/*"],
        "hooks": hooks(target),
    }


def build(target: Target) -> AttachConfig:
    if target.hosted:
        files = {
            "mcp.json": as_json(mcp_config(target)),
            "settings.json": as_json(settings(target)),
        }
        argv = [
            "--mcp-config",
            target.path("mcp.json"),
            "--settings",
            target.path("settings.json"),
            "--allowedTools",
            ",".join(ALLOWED_TOOLS),
        ]
        return AttachConfig(files=files, env=target.env, argv_extra=argv)
    files = {
        ".mcp.json": as_json(mcp_config(target)),
        ".claude/settings.local.json": as_json(settings(target)),
    }
    return AttachConfig(
        files=files,
        env=target.env,
        one_liner="claude",
        notes=[
            "Start `claude` in the folder holding these files: it connects the crosstalk "
            "MCP server and the hooks with nothing else to set.",
            "Both files hold the chat's key: keep them out of git.",
        ],
    )
