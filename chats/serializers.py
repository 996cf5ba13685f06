"""Chats and turns as JSON, the one shape REST and MCP answer with (docs/api.md)."""

from datetime import datetime

from chats.models import Chat, Turn


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def chat_json(chat: Chat) -> dict:
    """A chat as JSON: exactly docs/api.md's fields; never the agent key."""
    return {
        "id": str(chat.pk),
        "name": chat.name,
        "repository": chat.repository,
        "branch": chat.branch,
        "agent": chat.agent,
        "model": chat.model,
        "permission_mode": chat.permission_mode,
        "origin": chat.origin,
        "status": chat.status,
        "peers": chat.peers,
        "inbound": chat.inbound,
        "archived": chat.archived,
        "last_ran_at": iso(chat.last_ran_at),
        "last_asked": chat.last_asked,
        "last_answered": chat.last_answered,
        "failure": chat.failure if chat.status == Chat.Status.FAILED else None,
    }


def turn_json(turn: Turn) -> dict:
    return {
        "id": str(turn.pk),
        "chat": str(turn.chat_id),
        "trigger": turn.trigger,
        "state": turn.state,
        "send_queued": turn.send_queued,
        "requested_at": iso(turn.requested_at),
    }
