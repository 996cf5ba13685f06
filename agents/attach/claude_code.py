"""Claude Code. Attached: the `crosstalk` server in the person's own
`~/.claude.json` under the folder's project (what `claude mcp add --scope local`
writes), and `.claude/settings.local.json` with the key for the hooks, the tools
allowed, the hooks and `crossSessionInbound: "refuse"` (kept out of git). Hosted:
`mcp.json` and `settings.json` loaded with --mcp-config / --settings.

Hosted hooks are native http hooks, except SessionStart: Claude Code ignores
http hooks there, so it runs the hook command."""

import os
import shlex
from functools import partial
from pathlib import Path

from agents.attach import gitignore
from agents.attach.common import (
    HOOK_TIMEOUT,
    HOOKS_PATH,
    SERVER,
    TOOLS,
    AttachConfig,
    Target,
    as_json,
    drop_hooks,
    hook_command,
    merge_hooks,
)
from agents.attach.files import Edit, add_unique, drop_items, prune, table

CLI = "claude-code"
HTTP_EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
# Claude Code's own messaging tools, which Crosstalk answers (agents.hooks.native_messaging).
MATCHERS = {"PreToolUse": "SendMessage|ListAgents", "PostToolUse": "*"}
# Claude Code's own messages from other sessions on the machine: refused, so every
# message between two attached sessions goes through Crosstalk (docs/agents.md).
INBOUND = {"crossSessionInbound": "refuse"}
ALLOWED_TOOLS = [f"mcp__{SERVER}__{tool}" for tool in TOOLS]
LOCAL_SETTINGS = ".claude/settings.local.json"


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
    """Hosted: native http hooks (SessionStart runs the command). Attached: the
    command everywhere, so a hook that cannot reach Crosstalk says so in the session."""
    command = {"type": "command", "command": hook_command(CLI), "timeout": HOOK_TIMEOUT}
    table = {"SessionStart": [{"hooks": [command]}]}
    for event in HTTP_EVENTS:
        group = {"hooks": [http_hook(target) if target.hosted else command]}
        if event in MATCHERS:
            group = {"matcher": MATCHERS[event], **group}
        table[event] = [group]
    return table


def settings(target: Target) -> dict:
    return {
        # The hooks read these; a session started in the folder needs nothing else.
        "env": target.env,
        "enabledMcpjsonServers": [SERVER],
        "permissions": {"allow": ALLOWED_TOOLS},
        "allowedHttpHookUrls": [f"{target.base_url}{HOOKS_PATH}*"],
        "hooks": hooks(target),
        **INBOUND,
    }


def local_settings(target: Target) -> dict:
    """`.claude/settings.local.json` of an attached session: the key (for the hooks),
    the tools allowed, the hooks."""
    allow = {"allow": ALLOWED_TOOLS}
    return {"env": target.env, "permissions": allow, "hooks": hooks(target), **INBOUND}


def mcp_add(target: Target) -> str:
    """What `claude mcp add` writes for the folder (its local scope, ~/.claude.json)."""
    header = shlex.quote(f"Authorization: Bearer {target.key}")
    return (
        f"claude mcp add --transport http --scope local {SERVER} "
        f"{shlex.quote(target.mcp_url)} --header {header}"
    )


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
    return AttachConfig(
        files={LOCAL_SETTINGS: as_json(local_settings(target))},
        one_liner="claude",
        commands=[mcp_add(target)],
        mcp_start=f"claude --allowedTools {','.join(ALLOWED_TOOLS)}",
        notes=[
            f"In the folder you work in, run the `claude mcp add` line (it keeps the server "
            f"and its key in your own ~/.claude.json, outside the folder) and put the "
            f"settings in {LOCAL_SETTINGS}, which holds the key for the hooks: keep it out "
            f"of git. Then start `claude` there: nothing else to set.",
        ],
    )


# agent_config --write / --remove ------------------------------------------------------


def user_config() -> Path:
    """Where Claude Code keeps its per-user config (and local-scope MCP servers)."""
    home = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(home).expanduser() / ".claude.json" if home else Path.home() / ".claude.json"


def project_key(folder: Path) -> str:
    """The key Claude Code files a folder under: its repository's root, else the folder."""
    found = gitignore.repository(folder)
    return str(found[0]) if found else os.path.realpath(folder)


def add_settings(ours: dict, data: dict) -> None:
    """Crosstalk's env, tool permissions and hooks, merged into the person's settings."""
    table(data, "env").update(ours["env"])
    allow = table(data, "permissions").get("allow")
    allow = allow if isinstance(allow, list) else []
    data["permissions"]["allow"] = add_unique(allow, ALLOWED_TOOLS)
    merge_hooks(table(data, "hooks"), ours["hooks"])
    data.update(INBOUND)


def drop_settings(ours: dict, data: dict) -> None:
    for name in ours["env"]:
        prune(data, "env", name)
    drop_items(data, ("permissions", "allow"), ALLOWED_TOOLS.__contains__)
    if data.get("crossSessionInbound") == INBOUND["crossSessionInbound"]:
        del data["crossSessionInbound"]
    if isinstance(data.get("hooks"), dict):
        drop_hooks(data["hooks"])
        if not data["hooks"]:
            del data["hooks"]
    # What earlier versions added: http hook URLs, the .mcp.json server enabled.
    drop_items(data, ("allowedHttpHookUrls",), lambda url: HOOKS_PATH in str(url))
    drop_items(data, ("enabledMcpjsonServers",), SERVER.__eq__)


def drop_project_server(data: dict) -> None:
    prune(data, "mcpServers", SERVER)


def edits(target: Target, folder: Path) -> list[Edit]:
    project = project_key(folder)
    server = mcp_config(target)["mcpServers"][SERVER]
    ours = local_settings(target)

    def add_server(data: dict) -> None:
        table(data, "projects", project, "mcpServers")[SERVER] = server

    def drop_server(data: dict) -> None:
        # Under either key: the folder may have become a repository since.
        for key in {project, os.path.realpath(folder)}:
            prune(data, "projects", key, "mcpServers", SERVER)

    add, drop = partial(add_settings, ours), partial(drop_settings, ours)
    return [
        # It holds the key: 0600, as Claude Code and `claude mcp add` create it.
        Edit(user_config(), "json", add_server, drop_server, keep_empty=True, holds_key=True),
        Edit(folder / LOCAL_SETTINGS, "json", add, drop, secret=True),
        # Earlier versions put the server, key included, in the project's .mcp.json.
        Edit(
            folder / ".mcp.json",
            "json",
            drop_project_server,
            drop_project_server,
            only_existing=True,
        ),  # fmt: skip
    ]
