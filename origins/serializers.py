"""Origins, their requests and answers as JSON: the one shape REST and MCP answer with
(docs/api.md). Never a secret, token or private key, except the new secret in the answer
that made it (create, rotate), that once."""

from chats.serializers import iso
from origins.inputs import SECRET_SETTINGS, SHOWN_SETTINGS, TEMPLATE_FIELDS
from origins.models import Origin, OriginDelivery, OriginReply
from origins.selectors import requests_per_hour, where


def origin_json(origin: Origin) -> dict:
    stored = origin.settings or {}
    return {
        "id": origin.public_id,
        "kind": origin.kind,
        "name": origin.name,
        "enabled": origin.enabled,
        "url": where(origin),
        "requests_per_hour": origin.requests_per_hour,
        "limit": requests_per_hour(origin),
        **{field: getattr(origin, field) for field in TEMPLATE_FIELDS},
        **{field: str(stored.get(field, "")) for field in SHOWN_SETTINGS},
        # Which stored secrets it holds, never their values.
        "stored": [field for field in SECRET_SETTINGS if stored.get(field)],
        "created_at": iso(origin.created_at),
    }


def origin_with_secret(origin: Origin) -> dict:
    return {**origin_json(origin), "secret": origin.secret}


def request_json(delivery: OriginDelivery) -> dict:
    turn = delivery.turn
    return {
        "id": delivery.delivery_id,
        "chat": str(turn.chat_id) if turn else None,
        "turn_state": turn.state if turn else None,
        "error": (turn.error or "") if turn else "",
        "created_at": iso(delivery.created_at),
    }


def answer_json(reply: OriginReply) -> dict:
    return {
        "id": reply.pk,
        "chat": str(reply.thread.chat_id),
        "thread": reply.thread.thread_key,
        "text": reply.text,
        "state": reply.state,
        "attempts": reply.attempts,
        "resends": reply.resends,
        "last_error": reply.last_error,
        "created_at": iso(reply.created_at),
        "sent_at": iso(reply.sent_at),
    }
