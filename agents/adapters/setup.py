"""A hosted turn is configured like a session the person attaches themselves
(agents.attach): the `crosstalk` MCP server and the hooks for that chat, with
the turn's key, written under var/agents/<chat>/ (never into the person's
repository). What one CLI needs beyond that (Codex: a CODEX_HOME of the chat's
own) its adapter says: `config_subfolder` and `prepare_home`.

Those folders are private, checked at every turn: 0700, ours, and no folder
above them that its group or anyone may write (Gemini skips its settings below
such a folder, /tmp say, and would run without its tools and hooks). One that cannot be
made so fails the turn with the reason; there is no quiet fallback."""

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from django.conf import settings

from agents.adapters.base import AgentUnavailable
from agents.attach import CLIS, AttachConfig, attach_config, write_files
from chats.models import Chat


@dataclass(slots=True)
class HostedSetup:
    folder: Path
    env: dict[str, str]
    argv_extra: list[str]


def chat_folder(chat: Chat) -> Path:
    return Path(settings.AGENTS_DIR) / chat.pk


class HomeSetup(Protocol):
    """What an adapter says of the folder its CLI's settings go in."""

    config_subfolder: str

    def prepare_home(self, folder: Path, config: AttachConfig, setup: HostedSetup) -> None: ...


def config_folder(chat: Chat, cli: HomeSetup) -> Path:
    folder = chat_folder(chat)
    return folder / cli.config_subfolder if cli.config_subfolder else folder


def hosted_setup(chat: Chat, cli: HomeSetup, *, key: str) -> HostedSetup:
    """Write the chat's configuration for this turn; what the CLI is started with."""
    folder = config_folder(chat, cli)
    if chat.agent not in CLIS:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return HostedSetup(folder, {}, [])
    for private in dict.fromkeys((Path(settings.AGENTS_DIR), chat_folder(chat), folder)):
        if (problem := not_private(private)) is not None:
            raise AgentUnavailable(problem)
    config = attach_config(
        chat, chat.agent, key=key, base_url=settings.CROSSTALK_URL, hosted=True, config_dir=folder
    )
    setup = HostedSetup(folder, dict(config.env), list(config.argv_extra))
    cli.prepare_home(folder, config, setup)
    write_files(config, folder)
    return setup


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
