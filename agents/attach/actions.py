"""Attaching a session to a chat: which chats can be attached, and each attachment's key."""

from dataclasses import dataclass

from django.db import transaction

from agents.attach import CLIS
from chats import agent_kinds
from chats.actions import do_issue_attachment_key
from chats.models import Chat
from kernel.refusals import Refusal
from peers.actions.chat_state import do_set_peers


@dataclass(frozen=True, slots=True)
class Attached:
    key: str
    switched_on: bool  # the chat's Agent-to-agent switch was off and is now on


def can_attach(chat: Chat) -> bool:
    """chats' table of kinds says which take a session the person runs (the chat page
    shows the panel by it too); agents.attach has the files of each."""
    return agent_kinds.takes_attached_session(chat.agent)


def check_attach(chat: Chat) -> Chat:
    """Only Claude Code, Codex and Gemini chats take a session the person runs."""
    if not can_attach(chat):
        kinds = ", ".join(CLIS)
        raise Refusal(
            "not_attachable",
            f"{chat.name} is a {Chat.Agent(chat.agent).label} chat: only {kinds} chats "
            "can be attached to a session you run yourself.",
        )
    return chat


def do_attach(chat: Chat, *, cli: str, folder: str = "") -> Attached:
    """A key of this attachment's own (the chat's other keys keep working; one made
    earlier for the same CLI and folder is replaced) and the chat's switch on, so the
    attached session gets its tools and messages."""
    with transaction.atomic():
        switched_on = not chat.peers
        do_set_peers(chat, enabled=True)
        _, secret = do_issue_attachment_key(chat, cli=cli, folder=folder)
        return Attached(key=secret, switched_on=switched_on)
