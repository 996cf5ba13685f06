"""Gemini. Attached: the MCP server and the hooks merged into the folder's
`.gemini/settings.json` when git does not track it (listed in `.git/info/exclude` as
long as Crosstalk's entries are in it); when the folder commits that file, a settings
file of Crosstalk's own instead, `.crosstalk/gemini-settings.json` (private, excluded),
named by GEMINI_CLI_SYSTEM_SETTINGS_PATH, so a committed file is never written. (Gemini
skips that file when a folder above it may be written by others, such as /tmp, which
is why the folder's own file comes first.) `.crosstalk/env` holds the key and URL,
which the start line puts in Gemini's environment; settings expand ${CROSSTALK_KEY},
so no settings file holds the key. Hosted: the variable names a settings file in the
runner's folder."""

import shlex
from pathlib import Path

from agents.attach import gitignore
from agents.attach.common import (
    ENV_FILE,
    HOOK_TIMEOUT,
    SERVER,
    AttachConfig,
    Target,
    as_json,
    drop_hooks,
    env_text,
    hook_command,
    merge_hooks,
)
from agents.attach.files import Edit, env_file_edit, prune, table

CLI = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd")
# The folder's own settings: earlier versions wrote there; only taken out again.
SETTINGS = ".gemini/settings.json"
OWN_SETTINGS = ".crosstalk/gemini-settings.json"
SETTINGS_VARIABLE = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"


def settings(target: Target) -> dict:
    hook = {
        "name": "crosstalk",
        "type": "command",
        "command": hook_command(CLI),
        "timeout": HOOK_TIMEOUT * 1000,
    }
    server = {
        "httpUrl": target.mcp_url,
        "headers": {"Authorization": "Bearer ${CROSSTALK_KEY}"},
        "trust": True,
    }
    return {
        "mcpServers": {SERVER: server},
        "hooks": {event: [{"matcher": "*", "hooks": [hook]}] for event in EVENTS},
    }


def mcp_add(target: Target) -> str:
    """In the user's settings (never the folder's, which may be committed); Gemini
    expands ${CROSSTALK_KEY} from the environment the session starts with."""
    header = shlex.quote("Authorization: Bearer ${CROSSTALK_KEY}")
    return (
        f"gemini mcp add --scope user --transport http --trust {SERVER} "
        f"{shlex.quote(target.mcp_url)} --header {header}"
    )


def build(target: Target) -> AttachConfig:
    if target.hosted:
        files = {"settings.json": as_json(settings(target))}
        # Gemini reads a settings file named by this variable above the user's and
        # the project's, so nothing is written into the chat's folder.
        path = target.path("settings.json")
        env = {**target.env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": path}
        note = (
            "Gemini skips this settings file (with a warning on stderr) when a folder above "
            "it is writable by others, such as /tmp: keep the config folder under var/."
        )
        return AttachConfig(files=files, env=env, notes=[note])
    env = {**target.env, SETTINGS_VARIABLE: OWN_SETTINGS}
    return AttachConfig(
        files={OWN_SETTINGS: as_json(settings(target)), ENV_FILE: env_text(env)},
        env=env,
        one_liner=f"env $(cat {ENV_FILE}) gemini",
        commands=[mcp_add(target)],
        mcp_start=f"CROSSTALK_KEY={shlex.quote(target.key)} gemini",
        notes=[
            f"{ENV_FILE} holds the key and names {OWN_SETTINGS}: keep both out of git "
            f"(agent_config --write lists them in .git/info/exclude). Start Gemini in the "
            f"folder with the line above; the folder's own {SETTINGS} is left alone.",
            "The `gemini mcp add` line adds the same server to your user settings instead "
            "(hooks not included); start Gemini with CROSSTALK_KEY set.",
        ],
    )


def edits(target: Target, folder: Path) -> list[Edit]:
    ours = settings(target)

    def add_settings(data: dict) -> None:
        table(data, "mcpServers")[SERVER] = ours["mcpServers"][SERVER]
        merge_hooks(table(data, "hooks"), ours["hooks"])

    def drop_settings(data: dict) -> None:
        prune(data, "mcpServers", SERVER)
        if isinstance(data.get("hooks"), dict):
            drop_hooks(data["hooks"])
            if not data["hooks"]:
                del data["hooks"]

    project, own = folder / SETTINGS, folder / OWN_SETTINGS
    if gitignore.is_tracked(project):  # committed: never written; a file of our own
        return [
            Edit(own, "json", add_settings, drop_settings, secret=True),
            env_file_edit(folder / ENV_FILE, {**target.env, SETTINGS_VARIABLE: str(own)}),
            # An earlier version's entries in it: printed for the person to take out.
            Edit(project, "jsonc", drop_settings, drop_settings, only_existing=True),
        ]
    return [
        Edit(project, "jsonc", add_settings, drop_settings, secret=True),
        env_file_edit(folder / ENV_FILE, target.env, also_drop=[SETTINGS_VARIABLE]),
        Edit(own, "json", drop_settings, drop_settings, only_existing=True, secret=True),
    ]
