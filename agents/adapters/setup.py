"""A hosted turn is configured like a session the person attaches themselves:
the `crosstalk` MCP server (and hooks) for that chat, written under var/agents/
(never into the person's repository), with the turn's key.

The configuration itself is agents.attach's (`attach_config`); until it lands,
`minimal_config` stands in with the MCP server alone."""

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from chats.models import Chat

Agent = Chat.Agent


@dataclass(slots=True)
class AttachConfig:
    """The shape agents.attach.attach_config answers with."""

    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    argv_extra: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class HostedSetup:
    folder: Path
    env: dict[str, str]
    argv_extra: list[str]


def chat_folder(chat: Chat) -> Path:
    return Path(settings.AGENTS_DIR) / chat.pk


def hosted_setup(chat: Chat, *, key: str) -> HostedSetup:
    """Write the chat's configuration for this turn; what the CLI is started with."""
    folder = chat_folder(chat)
    config = attach_config_for(chat, key=key, folder=folder)
    for relpath, content in config.files.items():
        write_private(folder / relpath, content)
    if chat.agent == Agent.CODEX:
        share_codex_login(folder / "codex-home")
    return HostedSetup(folder, dict(config.env), list(config.argv_extra))


def attach_config_for(chat: Chat, *, key: str, folder: Path) -> AttachConfig:
    return minimal_config(chat, key=key, folder=folder)


def minimal_config(chat: Chat, *, key: str, folder: Path) -> AttachConfig:
    """The MCP server alone; a chat whose switch is off gets nothing (no tools, no tokens)."""
    url = settings.CROSSTALK_URL.rstrip("/") + "/mcp"
    config = AttachConfig()
    if chat.agent == Agent.CODEX:
        # Its own home: `exec resume` finds the chat's sessions there, and nobody else's.
        config.env["CODEX_HOME"] = str(folder / "codex-home")
    if not chat.peers:
        return config
    if chat.agent == Agent.CLAUDE_CODE:
        config.files["claude-mcp.json"] = mcp_servers({"type": "http", "url": url}, key)
        config.argv_extra += ["--mcp-config", str(folder / "claude-mcp.json")]
    elif chat.agent == Agent.CODEX:
        server = "mcp_servers.crosstalk"
        config.argv_extra += ["-c", f'{server}.url="{url}"']
        config.argv_extra += ["-c", f'{server}.bearer_token_env_var="CROSSTALK_KEY"']
        config.argv_extra += ["-c", f'{server}.default_tools_approval_mode="approve"']
    elif chat.agent == Agent.GEMINI:
        config.files["gemini-settings.json"] = mcp_servers({"httpUrl": url, "trust": True}, key)
        config.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = str(folder / "gemini-settings.json")
    return config


def mcp_servers(server: dict, key: str) -> str:
    server = {**server, "headers": {"Authorization": f"Bearer {key}"}}
    return json.dumps({"mcpServers": {"crosstalk": server}}, indent=2)


def write_private(path: Path, content: str) -> None:
    """Readable by this user only: the files carry the turn's key."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(content)


def share_codex_login(home: Path) -> None:
    """A per-chat CODEX_HOME still uses the person's `codex login` and config, if any."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    own = Path(os.environ.get("HOME", "~")).expanduser() / ".codex"
    for name in ("auth.json", "config.toml"):
        source, target = own / name, home / name
        if source.is_file() and not target.exists():
            shutil.copyfile(source, target)
            target.chmod(0o600)
