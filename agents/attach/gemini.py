"""Gemini. Attached: `.gemini/settings.json` in the folder with the MCP server and
the hooks (merged into the person's settings), and `.crosstalk/env` with the key
and URL (private, kept out of git), which the start line puts in Gemini's
environment. Settings expand ${CROSSTALK_KEY}, so settings.json does not hold the
key. (Gemini's own `.gemini/.env` is loaded too late for that expansion, and would
hide a person's `.env`.) Hosted: a settings file named by
GEMINI_CLI_SYSTEM_SETTINGS_PATH."""

import shlex
from pathlib import Path

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
SETTINGS = ".gemini/settings.json"


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
    header = shlex.quote("Authorization: Bearer ${CROSSTALK_KEY}")
    return (
        f"gemini mcp add --scope project --transport http --trust {SERVER} "
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
    return AttachConfig(
        files={SETTINGS: as_json(settings(target)), ENV_FILE: env_text(target.env)},
        env=target.env,
        one_liner=f"env $(cat {ENV_FILE}) gemini",
        commands=[mcp_add(target)],
        notes=[
            f"{ENV_FILE} holds the key: keep it out of git. Start Gemini in the folder with "
            f"the line above; trust the folder when it asks, so {SETTINGS} and its hooks load.",
            "The `gemini mcp add` line adds the same server to the folder's settings "
            "(hooks not included).",
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

    return [
        Edit(folder / SETTINGS, "jsonc", add_settings, drop_settings),
        env_file_edit(folder / ENV_FILE, target.env),
    ]
