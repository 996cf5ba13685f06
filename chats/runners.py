"""Who may have Crosstalk run a process on this server, and where.

A `command` chat, or a Claude Code / Codex / Gemini chat with a working folder,
runs a process on the server as the server's user: only accounts with the
permission `agents.run_hosted` may create or prompt one (superusers have it). A
chat without a folder is attached (the person runs it) and a demo chat runs
nothing: they need no permission. A working folder belongs to one account
(chats.folders: inside `<root>/<username>/`), checked when a chat is made or its
folder changed, and again when each turn starts."""

from chats import agent_kinds, folders
from chats.models import Chat, Turn
from kernel.refusals import Refusal

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


def check_folder(user, folder: str, *, make: bool = False) -> str:
    """The working folder a chat of this account stores and runs in: resolved (symlinks
    and `..` followed), within the account's own folder; with `make`, made when missing.
    No folder ("") stays none. Refuses `invalid_input` "folder: sentence"."""
    if not folder:
        return ""
    if "\x00" in folder:
        raise Refusal("invalid_input", "folder: a working folder may not contain NUL characters.")
    try:
        found = folders.resolve(user, folder)
        if make:
            folders.make(user, found)
    except folders.FolderRefused as refused:
        raise Refusal("invalid_input", f"folder: {refused.sentence}") from None
    return str(found)


def check_turn_may_run(turn: Turn) -> str:
    """At a turn's start (a wake or send-on too): the owner may have lost the permission,
    or the folder may break the rule now (a link swapped in, a chat older than the rule).
    Returns the folder the turn runs in, resolved now ("": none), so that a link swapped
    in after this check leads nowhere new; refuses with the sentence the turn fails with."""
    chat = turn.chat
    if not runs_on_server(chat.agent, chat.folder):
        return ""
    if not may_run_hosted(chat.user):
        raise not_allowed(chat.user)
    try:
        return check_folder(chat.user, chat.folder)
    except Refusal as refusal:
        raise Refusal(refusal.code, refusal.message.removeprefix("folder: ")) from None
