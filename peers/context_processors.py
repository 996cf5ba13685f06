"""What every page shows of peers beside chats' own parts: the messages held for the
person (the title counts them) and, on the chat list, how many wait for each chat.

Lazy: each query runs once per render, and only on a page that shows it; the
template tags read these values and never query."""

from django.db.models import Count
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from peers.models import PeerMessage


def held_for_you_count(user) -> int:
    """Messages held until the person writes to their chat."""
    return PeerMessage.objects.held().filter(user=user).count()


def waiting_counts(user) -> dict[str, int]:
    """Per chat of the account: messages sent to it that its agent has not taken yet."""
    rows = (
        PeerMessage.objects.waiting()
        .filter(user=user, to_chat__isnull=False)
        .values("to_chat")
        .annotate(n=Count("id"))
    )
    return {row["to_chat"]: row["n"] for row in rows}


def peer_counts(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"held_for_you": 0, "waiting_counts": {}}
    return {
        "held_for_you": SimpleLazyObject(lambda: held_for_you_count(user)),
        "waiting_counts": SimpleLazyObject(lambda: waiting_counts(user)),
    }
