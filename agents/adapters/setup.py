"""A hosted turn is configured like a session the person attaches themselves
(agents.attach): the `crosstalk` MCP server and the hooks for that chat, with
the turn's key, written under var/agents/<chat>/ (never into the person's
repository). Codex gets a CODEX_HOME of the chat's own there, so `exec resume`
finds the chat's sessions, seeded with the operator's config and login."""

import json
import os
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from agents.attach import CLIS, attach_config, write_files
from chats.models import Chat

Agent = Chat.Agent
CODEX_HOME = "codex-home"
# What the operator's own Codex home lends each chat's: its provider settings and login.
CODEX_SHARED = ("config.toml", "auth.json")


@dataclass(slots=True)
class HostedSetup:
    folder: Path
    env: dict[str, str]
    argv_extra: list[str]


def chat_folder(chat: Chat) -> Path:
    return Path(settings.AGENTS_DIR) / chat.pk


def config_folder(chat: Chat) -> Path:
    folder = chat_folder(chat)
    return folder / CODEX_HOME if chat.agent == Agent.CODEX else folder


def hosted_setup(chat: Chat, *, key: str) -> HostedSetup:
    """Write the chat's configuration for this turn; what the CLI is started with."""
    folder = config_folder(chat)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if chat.agent not in CLIS:
        return HostedSetup(folder, {}, [])
    config = attach_config(
        chat, chat.agent, key=key, base_url=settings.CROSSTALK_URL, hosted=True, config_dir=folder
    )
    env, argv = dict(config.env), list(config.argv_extra)
    if chat.agent == Agent.CODEX:
        env["CODEX_HOME"] = str(folder)
        seed_codex_home(folder)
        # Crosstalk's settings go on the command line, above the operator's config.toml.
        argv += codex_overrides(config.files.pop("config.toml", ""))
    write_files(config, folder)
    return HostedSetup(folder, env, argv)


def operator_codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def seed_codex_home(home: Path) -> None:
    """Copy in the operator's config.toml (its model provider) and login, when newer."""
    own = operator_codex_home()
    for name in CODEX_SHARED:
        source, target = own / name, home / name
        if not source.is_file() or source.resolve() == target.resolve():
            continue
        if not target.exists() or source.stat().st_mtime > target.stat().st_mtime:
            shutil.copyfile(source, target)
            target.chmod(0o600)


def codex_overrides(toml: str) -> list[str]:
    """A config.toml as `-c dotted.key=value` flags (TOML values; JSON writes them alike)."""
    flags = []
    for dotted, value in flatten(tomllib.loads(toml)):
        flags += ["-c", f"{dotted}={json.dumps(value)}"]
    return flags


def flatten(table: dict, prefix: str = ""):
    for name, value in table.items():
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value
