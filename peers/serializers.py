from chats.serializers import iso
from peers.delivery_table import words
from peers.models import Activity, PeerMessage

__all__ = ["activity_json", "iso", "message_json", "words"]


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
