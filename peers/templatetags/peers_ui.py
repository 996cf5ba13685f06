"""What the pages show of peers beside chats' own parts: how many messages wait for
a chat, how many wait for the person, and the activity log in words."""

from django import template
from django.db.models import Count, Q

from peers.models import Activity, PeerMessage

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


# A refusal's code in a few words, for the activity log (the sentence is the sender's).
REFUSED = {
    "no_chat": "there is no such chat",
    "not_yourself": "a chat cannot message itself",
    "outside_origin": "a chat started from outside cannot send",
    "not_reachable": "the other chat has messaging off or has not run lately",
    "empty_message": "the message was empty",
    "message_too_long": "the message was too long",
    "no_such_message": "it answered a message it never got",
    "limit_chat_hour": "it sent too many messages this hour",
    "limit_pair_window": "the two chats wrote too often in a short time",
    "limit_pair_without_you": "the two chats wrote too long without you",
    "limit_wakes": "too many idle chats were woken this hour",
    "limit_chain": "the chain of messages grew too long without you",
    "limit_list_read": "it listed or read chats too often this hour",
    "peers_off": "its agent-to-agent messaging is off",
    "runners_not_allowed": "this account may not run agents on this server",
    "invalid_input": "a field was not valid",
    "no_message": "there is no such message",
    "already_delivered": "the message had already arrived",
}
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
}


@register.filter
def refused_words(code: str) -> str:
    return REFUSED.get(code, "it was refused")


@register.filter
def path_words(path: str) -> str:
    return PeerMessage.Path(path).label if path in PeerMessage.Path.values else path
