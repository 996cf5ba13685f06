"""Gemini: `.gemini/settings.json` with the MCP server and the hooks. Settings
expand ${CROSSTALK_KEY}, so the file does not hold the key."""

from agents.attach.common import HOOK_TIMEOUT, SERVER, AttachConfig, Target, as_json, hook_command

CLI = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd")


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


def build(target: Target) -> AttachConfig:
    path = "settings.json" if target.hosted else ".gemini/settings.json"
    files = {path: as_json(settings(target))}
    if target.hosted:
        # Gemini reads a settings file named by this variable above the user's and
        # the project's, so nothing is written into the chat's folder.
        env = {**target.env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": target.path(path)}
        note = (
            "Gemini skips this settings file (with a warning on stderr) when a folder above "
            "it is writable by others, such as /tmp: keep the config folder under var/."
        )
        return AttachConfig(files=files, env=env, notes=[note])
    line = " ".join(f"{name}={value}" for name, value in target.env.items())
    return AttachConfig(
        files=files,
        env=target.env,
        one_liner=f"{line} gemini",
        notes=[
            "Start gemini in the folder holding .gemini/settings.json with the line above; "
            "trust the folder when it asks, so its settings and hooks load.",
        ],
    )
