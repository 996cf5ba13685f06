"""Filters peers' pages use: the activity log in words."""

from django import template

from peers.models import Activity, PeerMessage
from peers.refusal_words import FROM_OUTSIDE, refused_words

register = template.Library()


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
