"""Permissioned reads for peers: who can be reached, how fast, what waits where."""

from datetime import timedelta
from statistics import median

from django.db.models import F, Q
from django.utils import timezone

from chats.models import Chat
from chats.selectors import access_chat, account_chats
from kernel.refusals import Refusal
from peers.delivery_table import HELD, answering_origin, route_for
from peers.limits import current_limits
from peers.models import Activity, Notice, PeerMessage
from peers.search import search

State = PeerMessage.State
Reason = PeerMessage.Reason


def find_chat_by_name(user, name: str) -> Chat | None:
    return account_chats(user).filter(name__iexact=name.strip()).first()


def reach_since(limits=None):
    limits = limits or current_limits()
    return timezone.now() - timedelta(hours=limits.reach_hours)


# THE rule of who can be messaged, by an agent or the person: switched on (or being
# switched on by a connect), not archived, and ran within the reach window. Its two forms, side by
# side: `reachable` for lists (every list a page offers), `is_reachable` for the one
# row a send or read has already locked.
# "Ran" is a turn (last_ran_at) or its attached session seen calling (last_seen_at).
def reachable(since, *, switching_on: bool = False) -> Q:
    ran = (Q(last_ran_at__gte=since) | Q(last_seen_at__gte=since)) & Q(archived=False)
    return ran if switching_on else ran & Q(peers=True)


def is_reachable(chat: Chat, *, since) -> bool:
    times = (chat.last_ran_at, chat.last_seen_at)
    ran = any(moment is not None and moment >= since for moment in times)
    return chat.peers and not chat.archived and ran


def offered_chats(chat: Chat, *, switching_on: bool = False) -> list[Chat]:
    """The account's other chats it may reach now, newest run first; with
    `switching_on` (Connect) the ones a connect may switch on."""
    chats = account_chats(chat.user_id).filter(reachable(reach_since(), switching_on=switching_on))
    chats = chats.exclude(pk=chat.pk)
    return list(chats.order_by(F("last_ran_at").desc(nulls_last=True), "name"))


def reach_of(chat: Chat) -> list[Chat]:
    """What the person sees as a chat's reach: none while it does not take part."""
    return offered_chats(chat) if chat.takes_part else []


def median_delivery_seconds(user_id: int, path: str) -> float | None:
    """The median time from sent to delivered of the account's last 200 on that path."""
    recent = (
        PeerMessage.objects.filter(user_id=user_id, state=State.DELIVERED, path=path)
        .order_by("-delivered_at")
        .values_list("created_at", "delivered_at")[:200]
    )
    seconds = [(delivered - created).total_seconds() for created, delivered in recent]
    return round(median(seconds), 3) if seconds else None


def how_fast(chats: list[Chat]) -> dict[str, dict]:
    """For each chat: the path a message sent to it now would take, in words, and
    how long that path took lately."""
    medians: dict[str, float | None] = {}
    answers = {}
    for chat in chats:
        route = route_for(chat, asks=chat.inbound == Chat.Inbound.ASK)
        path = str(route.path)
        if path not in medians:
            held = path in (HELD, Reason.AWAITING_APPROVAL)
            medians[path] = None if held else median_delivery_seconds(chat.user_id, path)
        answers[chat.pk] = {"path": path, "words": route.words, "median_seconds": medians[path]}
    return answers


def waiting_for_delivery(chat: Chat, *, include_held: bool = False):
    """Messages to this chat that no agent has taken yet.

    An answer a call is still waiting for is the call's; once its wait is over
    (the waiting process may have died) it reaches the chat like any other."""
    # Awaiting the person's approval: no agent takes it, whoever writes.
    waiting = PeerMessage.objects.waiting().exclude(reason=Reason.AWAITING_APPROVAL)
    if not include_held:
        waiting = waiting.not_held()
    awaited = Q(reason=Reason.AWAITED, reply_to__waiting_until__gt=timezone.now())
    return (
        waiting.filter(to_chat=chat)
        .exclude(awaited)
        .select_related("from_chat", "to_chat", "reply_to")
        .order_by("created_at", "id")
    )


def inbox(chat: Chat) -> list[PeerMessage]:
    # A turn answering the chat's origin reads no peer message (delivery_table).
    return [] if answering_origin(chat) else list(waiting_for_delivery(chat))


def untold_notices(chat: Chat):
    """The later turns of its sent messages its agent has not been told yet, oldest first."""
    return Notice.objects.filter(chat=chat, told_at__isnull=True).order_by("created_at", "id")


def anything_for_agent(chat: Chat) -> bool:
    """A pending message or an untold notice? One look (a step's hook asks it each time)."""
    pending = waiting_for_delivery(chat).filter(state=State.PENDING).order_by().values_list("pk")
    notices = untold_notices(chat).order_by().values_list("pk")
    return bool(pending.union(notices, all=True).order_by()[:1])


def messages_of_chat(user, chat: Chat):
    """A chat's peer messages, both ways, newest first."""
    return PeerMessage.objects.filter(
        Q(from_chat=chat) | Q(to_chat=chat), user=user
    ).select_related("from_chat", "to_chat")


def peer_messages(user, *, chat_id: str | None = None):
    """The account's peer messages, newest first; with a chat, that chat's (no_chat if none)."""
    if chat_id is None:
        return PeerMessage.objects.filter(user=user)
    return messages_of_chat(user, access_chat(user, chat_id))


MAX_QUERY = 500


def find_messages(user, spec):
    """The account's messages a MessageSearch names: newest first, or best match first
    with a query. A bad state or query is invalid_input; another account's chat, no_chat."""
    if spec.state is not None and spec.state not in State.values:
        states = ", ".join(State.values)
        raise Refusal("invalid_input", f"state: one of {states}.")
    query = (spec.query or "").strip()
    if "\x00" in query or len(query) > MAX_QUERY:
        raise Refusal("invalid_input", f"query: up to {MAX_QUERY} characters, no NUL.")
    messages = peer_messages(user, chat_id=spec.chat)
    if spec.state:
        messages = messages.filter(state=spec.state)
    return search(messages, query, user.pk) if query else messages.order_by("-created_at", "-id")


def access_message(user, message_id: str) -> PeerMessage | None:
    return (
        PeerMessage.objects.select_related("from_chat", "to_chat")
        .filter(pk=str(message_id), user=user)
        .first()
    )


def account_activity(user, chat: Chat | None = None, *, action: str | None = None):
    """Newest first; a chat's filter matches rows whose chat, target or message involves it."""
    rows = Activity.objects.filter(user=user).select_related("chat", "target")
    if action:
        rows = rows.filter(action=action)
    if chat is not None:
        rows = rows.filter(
            Q(chat=chat) | Q(target=chat) | Q(message__from_chat=chat) | Q(message__to_chat=chat)
        )
    return rows.order_by("-created_at", "-id")
