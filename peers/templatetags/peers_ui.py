"""What the pages show of peers beside chats' own parts: how many messages wait for
a chat, how many wait for the person, and the activity log in words."""

from django import template
from django.db.models import Count, Q

from peers.models import Activity, PeerMessage
from peers.refusal_words import FROM_OUTSIDE, refused_words

register = template.Library()
State = PeerMessage.State
WAITING = Q(state__in=[State.PENDING, State.QUEUED])
HELD = Q(state=State.QUEUED, reason=PeerMessage.Reason.HELD)


@register.simple_tag(takes_context=True)
def waiting_counts(context) -> dict[str, int]:
    """Per chat of the account: messages sent to it that its agent has not taken yet."""
    user = context["request"].user
    rows = (
        PeerMessage.objects.filter(WAITING, user=user, to_chat__isnull=False)
        .values("to_chat")
        .annotate(n=Count("id"))
    )
    return {row["to_chat"]: row["n"] for row in rows}


@register.simple_tag(takes_context=True)
def held_for_you_count(context) -> int:
    """Messages held until the person writes to their chat (the page title counts them)."""
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return 0
    return PeerMessage.objects.filter(HELD, user=request.user).count()


@register.filter
def get_item(mapping: dict, key):
    return mapping.get(key, 0) if mapping else 0


ACTIONS = {
    Activity.Action.LIST: "listed chats",
    Activity.Action.READ: "read a chat",
    Activity.Action.MESSAGE: "sent a message",
    Activity.Action.DELIVERY: "a message arrived",
    Activity.Action.CANCEL: "cancelled a message",
    Activity.Action.SWITCH: "switched messaging",
    Activity.Action.CONNECT: "connected chats",
    Activity.Action.REFUSED: "a send was refused",
    Activity.Action.LIMITS: "changed the limits",
    Activity.Action.ORIGIN: "a request or answer from outside",
}


register.filter(refused_words)


@register.filter
def refused_outside(code: str) -> bool:
    """A refusal only a request from an origin gets (its row names no sending chat)."""
    return code in FROM_OUTSIDE


@register.filter
def path_words(path: str) -> str:
    return PeerMessage.Path(path).label if path in PeerMessage.Path.values else path
