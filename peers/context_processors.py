"""What every page shows of peers beside chats' own parts: the messages held for the
person (the title counts them), the messages written to the person (notified once), and,
on the chat list, how many wait for each chat.

Lazy: each query runs once per render, and only on a page that shows it; the
template tags read these values and never query."""

from datetime import timedelta

from django.db.models import Count
from django.http import HttpRequest
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from peers.models import PERSON_HOLDS, PeerMessage


def held_for_you_count(user) -> int:
    """Messages waiting on the person: held until they write to their chat, or
    awaiting their approval (a chat that asks first)."""
    waiting = PeerMessage.objects.waiting().filter(user=user, reason__in=PERSON_HOLDS)
    return waiting.count()


def waiting_counts(user) -> dict[str, int]:
    """Per chat of the account: messages sent to it that its agent has not taken yet."""
    rows = (
        PeerMessage.objects.waiting()
        .filter(user=user, to_chat__isnull=False)
        .values("to_chat")
        .annotate(n=Count("id"))
    )
    return {row["to_chat"]: row["n"] for row in rows}


ASKS_SHOWN = 10


def asks_for_you(user) -> list[PeerMessage]:
    """The newest messages of the last day addressed to the person rather than a chat (a
    chat asking them, an answer to what they sent): the page notifies each once."""
    since = timezone.now() - timedelta(days=1)
    return list(
        PeerMessage.objects.filter(
            user=user, to_chat__isnull=True, from_chat__isnull=False, created_at__gte=since
        )
        .select_related("from_chat")
        .order_by("-created_at")[:ASKS_SHOWN]
    )


# A live part of chats' pages refetched with htmx carries the title count out of band;
# chats sits below peers, so its templates include it by this name, never by peers' own.
TITLE_COUNT_TEMPLATE = "peers/_title_count.html"


def peer_counts(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"held_for_you": 0, "waiting_counts": {}, "asks_for_you": []}
    return {
        "title_count_template": TITLE_COUNT_TEMPLATE,
        "held_for_you": SimpleLazyObject(lambda: held_for_you_count(user)),
        "waiting_counts": SimpleLazyObject(lambda: waiting_counts(user)),
        "asks_for_you": SimpleLazyObject(lambda: asks_for_you(user)),
    }
