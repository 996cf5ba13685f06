"""Who may have Crosstalk run a process on this server, and where.

A `command` chat, or a Claude Code / Codex / Gemini chat with a working folder,
runs a process on the server as the server's user: only accounts with the
permission `agents.run_hosted` may create or prompt one (superusers have it). A
chat without a folder is attached (the person runs it) and a demo chat runs
nothing: they need no permission. With AGENT_FOLDERS set, a working folder must
resolve (symlinks followed) inside one of its roots."""

import os
from pathlib import Path

from django.conf import settings

from chats import agent_kinds
from chats.models import Chat, Turn
from chats.refusals import Refusal

PERMISSION = "agents.run_hosted"
WHO_GRANTS = (
    "An admin of this server can grant it: `python manage.py allow_runners {username}`, "
    "or on /internal/admin/peers."
)


def runs_on_server(agent: str, folder: str) -> bool:
    """Whether a chat of this kind and folder has Crosstalk start a process here."""
    if agent == Chat.Agent.COMMAND:
        return True
    return agent != Chat.Agent.DEMO and bool(folder)


def is_attached(chat: Chat) -> bool:
    """A Claude Code, Codex or Gemini chat without a folder: the person runs its
    session on their own machine and attaches it with the chat's key."""
    return not chat.folder and not agent_kinds.takes(chat.agent).runs_without_folder


def may_run_hosted(user) -> bool:
    return user.is_active and user.has_perm(PERMISSION)


def not_allowed(user) -> Refusal:
    return Refusal(
        "runners_not_allowed",
        "Your account may not run agents on this server (a `command` chat, or a CLI chat "
        "with a working folder); attached and demo chats need no permission. "
        + WHO_GRANTS.format(username=user.get_username()),
    )


def check_may_run(user, *, agent: str, folder: str) -> None:
    if runs_on_server(agent, folder) and not may_run_hosted(user):
        raise not_allowed(user)


def why_folder_refused(folder: str) -> str | None:
    """Why this cannot be a chat's working folder ("folder: sentence"), or None."""
    if not folder:
        return None
    if "\x00" in folder:
        return "folder: a working folder may not contain NUL characters."
    if folder.startswith("-"):
        return "folder: a working folder may not start with `-`."
    roots = settings.AGENT_FOLDERS
    if roots and not inside_any(Path(os.path.realpath(folder)), roots):
        allowed = ", ".join(str(root) for root in roots)
        return f"folder: working folders on this server must be inside {allowed}."
    return None


def inside_any(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def why_turn_may_not_run(turn: Turn) -> str | None:
    """At a turn's start (a wake or send-on too): the owner may have lost the
    permission, or a folder's symlink may now lead elsewhere."""
    chat = turn.chat
    if not runs_on_server(chat.agent, chat.folder):
        return None
    if not may_run_hosted(chat.user):
        return not_allowed(chat.user).message
    problem = why_folder_refused(chat.folder)
    return problem.removeprefix("folder: ") if problem else None
