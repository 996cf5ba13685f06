"""Peer messaging as JSON: the one shape REST and MCP answer with (CONTRACT.md)."""

from chats.models import Chat, Entry
from chats.serializers import chat_json, iso
from peers.models import Activity, PeerMessage
from peers.selectors import how_fast

State = PeerMessage.State
Detail = PeerMessage.Detail

HELD_NOTE = (
    "The person stopped that chat: your message is held until they write to it. "
    "Do not wait for an answer; carry on with your own work."
)

DETAIL_WORDS = {
    Detail.WAKING: "waking it",
    Detail.BEHIND_TURN: "behind its current turn",
    Detail.WITH_BACKGROUND_WORK: "waits with its background work",
    Detail.HELD: "held until you write",
    Detail.BETWEEN_STEPS: "between steps",
    Detail.AS_FINISHED: "as it finished",
    Detail.WAITING_CALL: "as the answer a waiting call took",
    Detail.TURN_PROMPT: "as a turn's prompt",
    Detail.INBOX: "read from its inbox",
    Detail.TO_YOU: "to you",
    Detail.NEXT_STEP: "its next step takes it",
    Detail.REMOVED: "removed from the queue",
}


def words(message: PeerMessage) -> str:
    """The state in the words people see, the same in every interface."""
    label = State(message.state).label
    if message.state == State.PENDING and message.detail == Detail.WAITING_CALL:
        return "Pending — its sender is waiting for it"
    if message.state == State.NOT_DELIVERED:
        return f"{label} — {message.detail}" if message.detail else label
    if message.state == State.CANCELLED and message.detail != Detail.REMOVED:
        return "Cancelled — before it arrived"
    detail = DETAIL_WORDS.get(message.detail, "")
    return f"{label} — {detail}" if detail else label


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
        "answered": message.answered,
        "answer": message.answer_id,
        "words": words(message),
        "created_at": iso(message.created_at),
        "delivered_at": iso(message.delivered_at),
    }


def activity_json(row: Activity) -> dict:
    return {
        "id": str(row.pk),
        "chat": row.chat_id,
        "action": row.action,
        "target": row.target_id,
        "message": row.message_id,
        "detail": row.detail,
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
    body = {**message_json(message), "answer_message": message_json(answer) if answer else None}
    if message.detail == PeerMessage.Detail.HELD:
        body["note"] = HELD_NOTE
    return body
