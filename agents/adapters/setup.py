"""A hosted turn is configured like a session the person attaches themselves
(agents.attach): the `crosstalk` MCP server and the hooks for that chat, with
the turn's key, written under var/agents/<chat>/ (never into the person's
repository). What one CLI needs beyond that (Codex: a CODEX_HOME of the chat's
own) its adapter says: `config_subfolder` and `prepare_home`.

Those folders are private, checked at every turn: 0700, ours, and no folder
above them that its group or anyone may write (Gemini skips its settings below
such a folder, /tmp say, and would run without its tools and hooks). One that cannot be
made so fails the turn with the reason; there is no quiet fallback.

Every file and folder goes in through agents.safe_files: the agent may write these
folders, and the server never follows a link it left there."""

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from django.conf import settings

from agents import sandbox
from agents.attach import CLIS, AttachConfig, attach_config, write_files
from agents.errors import AgentUnavailable
from agents.logins import TurnLogins, turn_logins
from agents.safe_files import Folder, UnsafeFolder
from chats.models import Chat


@dataclass(slots=True)
class HostedSetup:
    folder: Path
    env: dict[str, str]
    argv_extra: list[str]
    logins: TurnLogins
    # What was found planted in the chat's folders and not followed: one sentence each.
    notices: list[str] = field(default_factory=list)


def chat_folder(chat: Chat) -> Path:
    return Path(settings.AGENTS_DIR) / chat.pk


class HomeSetup(Protocol):
    """What an adapter says of the folder its CLI's settings go in."""

    config_subfolder: str

    def prepare_home(self, folder: Folder, config: AttachConfig, setup: HostedSetup) -> None: ...


def hosted_setup(chat: Chat, cli: HomeSetup, *, key: str) -> HostedSetup:
    """Write the chat's configuration for this turn (its model login decided first);
    what the CLI is started with. Every file goes in through agents.safe_files."""
    logins = turn_logins(chat)
    try:
        with Folder.open_root(Path(settings.AGENTS_DIR)) as agents:
            if chat.agent in CLIS and (problem := not_private(agents.path)) is not None:
                raise AgentUnavailable(problem)
            with agents.sub(chat.pk) as private:
                setup = configure(chat, cli, private, key=key, logins=logins)
            setup.notices = [planted.notice() for planted in agents.planted]
    except UnsafeFolder as error:
        raise AgentUnavailable(str(error)) from None
    except OSError as error:
        where = error.filename or settings.AGENTS_DIR
        raise AgentUnavailable(
            f"the settings folder {where} cannot be made private: {error.strerror}"
        ) from None
    return setup


def configure(
    chat: Chat, cli: HomeSetup, private: Folder, *, key: str, logins: TurnLogins
) -> HostedSetup:
    with private.sub(cli.config_subfolder) as folder:
        setup = HostedSetup(folder.path, dict(logins.env), [], logins)
        if settings.AGENT_SANDBOX == "bwrap" or logins.withheld:
            # The agent's own home: in the jail always; outside it, one without the
            # operator's logins when they are not lent.
            setup.env["HOME"] = str(sandbox.private_home(private, logins))
        if chat.agent not in CLIS:
            return setup
        config = attach_config(
            chat, chat.agent, key=key, base_url=settings.CROSSTALK_URL, hosted=True,
            config_dir=folder.path,
        )  # fmt: skip
        setup.env |= config.env
        setup.argv_extra += config.argv_extra
        cli.prepare_home(folder, config, setup)
        write_files(config, folder)
    return setup


def not_private(folder: Path) -> str | None:
    """Why AGENTS_DIR is not private enough for a CLI's settings, or None. The folders
    themselves are made 0700 and checked ours on their fds (agents.safe_files); here, no
    folder above may be one that its group or anyone may write."""
    for above in Path(os.path.realpath(folder)).parents:
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
