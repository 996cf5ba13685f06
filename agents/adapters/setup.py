"""A hosted turn is configured like a session the person attaches themselves
(agents.attach): the `crosstalk` MCP server and the hooks for that chat, with
the turn's key, written under var/agents/<chat>/ (never into the person's
repository). Codex gets a CODEX_HOME of the chat's own there, so `exec resume`
finds the chat's sessions, seeded with the operator's config and login.

Those folders are private, checked at every turn: 0700, ours, and no folder
above them that its group or anyone may write (Gemini skips its settings below
such a folder, /tmp say, and would run without its tools and hooks). One that cannot be
made so fails the turn with the reason; there is no quiet fallback."""

import json
import os
import shutil
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from agents.adapters.base import AgentUnavailable
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
    if chat.agent not in CLIS:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return HostedSetup(folder, {}, [])
    for private in dict.fromkeys((Path(settings.AGENTS_DIR), chat_folder(chat), folder)):
        if (problem := not_private(private)) is not None:
            raise AgentUnavailable(problem)
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


def not_private(folder: Path) -> str | None:
    """Make `folder` private (0700, ours); why it cannot be, or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode):
            return f"the settings folder {folder} is not a folder (a link?)"
        if info.st_uid != os.geteuid():
            return f"the settings folder {folder} belongs to another user"
        if stat.S_IMODE(info.st_mode) != 0o700:
            folder.chmod(0o700)
    except OSError as error:
        return f"the settings folder {folder} cannot be made private: {error.strerror}"
    for above in folder.resolve().parents:
        try:
            writable = above.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        except OSError as error:
            return f"the settings folder {folder} cannot be checked: {above}: {error.strerror}"
        if writable:
            return (
                f"the settings folder {folder} is below {above}, which others may write"
                " (the CLI would ignore its settings there): set AGENTS_DIR to a private folder"
            )
    return None


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
