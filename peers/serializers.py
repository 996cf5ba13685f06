from chats.serializers import iso
from peers.models import Activity, PeerMessage

State = PeerMessage.State
Detail = PeerMessage.Detail

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
