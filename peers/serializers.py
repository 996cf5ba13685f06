"""Peer messaging as JSON: the one shape REST and MCP answer with (docs/api.md)."""

from chats.models import Chat, Entry
from chats.serializers import chat_json, iso
from peers.delivery_table import words
from peers.models import Activity, IdleWatch, Notice, PeerMessage
from peers.selectors import how_fast

__all__ = [
    "activity_json",
    "chats_with_how_fast",
    "entry_json",
    "inbox_json",
    "iso",
    "listing",
    "message_json",
    "notice_json",
    "sent_json",
    "words",
]

HELD_NOTE = (
    "The person stopped that chat: your message is held until they write to it. "
    "Do not wait for an answer; carry on with your own work."
)
APPROVAL_NOTE = (
    "That chat asks its person first: your message waits for their approval. Do not wait "
    "for an answer; a notice tells you when they approve or deny it."
)
NOTES = {PeerMessage.Reason.HELD: HELD_NOTE, PeerMessage.Reason.AWAITING_APPROVAL: APPROVAL_NOTE}


def message_json(message: PeerMessage) -> dict:
    return {
        "id": message.id,
        "from_chat": message.from_chat_id,
        "to_chat": message.to_chat_id,
        "sent_by": message.sent_by,
        "text": message.text,
        "reply_to": message.reply_to_id,
        "exchange": message.exchange,
        "chain": message.chain,
        "hop": message.hop,
        "state": message.state,
        "detail": message.detail,
        "path": message.path or None,
        "reason": message.reason or None,
        "answered": message.answered,
        "answer": message.answer_id,
        "answer_refused": message.answer_refused or None,
        "words": words(message),
        "created_at": iso(message.created_at),
        "delivered_at": iso(message.delivered_at),
    }


def notice_json(notice: Notice) -> dict:
    return {
        "id": notice.pk,
        "message": notice.message_id,
        "state": notice.state,
        "text": notice.text,
        "created_at": iso(notice.created_at),
    }


def inbox_json(messages: list[PeerMessage], notices: list[Notice]) -> dict:
    """The agent's inbox; `notices` only when there are some (the older shape otherwise)."""
    body = listing([message_json(message) for message in messages])
    if notices:
        body["notices"] = [notice_json(notice) for notice in notices]
    return body


def activity_json(row: Activity) -> dict:
    return {
        "id": str(row.pk),
        "chat": row.chat_id,
        "action": row.action,
        "target": row.target_id,
        "message": row.message_id,
        "detail": row.detail,
        "count": row.count,
        "created_at": iso(row.created_at),
    }


def listing(items: list) -> dict:
    return {"items": items, "count": len(items)}


def chats_with_how_fast(chats: list[Chat]) -> list[dict]:
    """ListChats and /reach: each chat with how fast a message would reach it."""
    fast = how_fast(chats)
    return [{**chat_json(chat), "how_fast": fast[chat.pk]} for chat in chats]


def entry_json(entry: Entry) -> dict:
    return {
        "kind": entry.kind,
        "text": entry.text,
        "created_at": iso(entry.created_at),
        "message": entry.message_id or None,
    }


def sent_json(message: PeerMessage, answer: PeerMessage | None = None) -> dict:
    """MessageChat's answer: the message, and the answering message when a wait took one."""
    return {
        **message_json(message),
        "answer_message": message_json(answer) if answer else None,
        "note": NOTES.get(message.reason) if message.state == PeerMessage.State.QUEUED else None,
        "notify_when_idle": watch_json(watch) if (watch := idle_watch(message)) else None,
    }


def idle_watch(message: PeerMessage) -> IdleWatch | None:
    """The subscription its send made (set by the send, or by with_watch for a replay)."""
    return getattr(message, "idle_watch", None)


def with_watch(message: PeerMessage) -> PeerMessage:
    """A replayed send's message with the subscription it made, if any."""
    message.idle_watch = IdleWatch.objects.filter(message=message).first()
    return message


def watch_json(watch: IdleWatch) -> dict:
    return {
        "id": watch.pk,
        "chat": watch.to_chat_id,
        "state": watch.outcome or "open",
        "expires_at": iso(watch.expires_at),
        "notice": watch.notice_id,
    }


def replay_message(shape, result: str) -> tuple[int, dict] | None:
    """A keyed send's answer rebuilt from the message it committed (kernel.idempotency)."""
    kind, _, pk = result.partition(":")
    message = PeerMessage.objects.filter(pk=pk).first() if kind == "message" else None
    return (201, shape(message)) if message is not None else None


# The keyed routes that send, and the shape each answers with.
REPLAYS = {
    "/api/v1/messages": message_json,
    "/api/v1/agent/messages": lambda message: sent_json(with_watch(message), message.answer),
}
