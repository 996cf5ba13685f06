"""notifyWhenIdle: subscribing without a message, the one notice a subscription ends
with when its chat next ends a turn (agents.turns calls notify_watchers), and the
notice that it expired (the lease loop calls do_expire_watches).

A notice is a message from the watched chat to its subscriber, sent by Crosstalk
(sent_by "notice"): it takes the usual delivery paths, and waking an idle
subscriber counts against the account's wakes an hour. Over that limit it does not
wake: it waits for the subscriber's next turn. It is never answered."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.keys import new_id
from chats import actions as chat_actions
from chats.models import Chat
from kernel.refusals import Refusal
from peers.actions.limits import StaleLimits, check_limits, fresh_limits
from peers.actions.locking import lock_chats, lock_for_send
from peers.actions.record import record_refusal
from peers.actions.send import (
    Outgoing,
    PreparedSend,
    check_recipient,
    check_sender,
    do_send_message,
)
from peers.actions.watch import do_watch, open_watches
from peers.delivery_table import FOR_ITS_SESSION, route_for
from peers.models import IdleWatch, PeerMessage
from peers.selectors import is_reachable, reach_since

Outcome = IdleWatch.Outcome
FIRST_LINES = 5
FIRST_CHARS = 600


def check_watch(sender: Chat, *, to: str) -> IdleWatch:
    """notifyWhenIdle without text: the send's checks on sender and recipient (another
    account's chat is no_chat, as a missing one), then only the subscription."""
    out = Outgoing(sender.user, sender, PeerMessage.SentBy.AGENT)
    try:
        with transaction.atomic():
            recipient = lock_for_send(sender.user, from_chat=sender, to=to, person=False)
            check_sender(out)
            limits = fresh_limits()
            check_recipient(out, recipient, limits)
            return do_watch(sender, recipient, now=timezone.now(), limits=limits)
    except Refusal as refusal:
        record_refusal(sender.user, refusal, chat_id=sender.pk, to=to)
        raise


def notify_watchers(chat: Chat) -> list[PeerMessage]:
    """`chat` ended a turn: each open subscription to it gets its one notice."""
    if not open_watches(chat).exists():  # most turn ends: one cheap query
        return []
    with transaction.atomic():
        chat.refresh_from_db(fields=["status", "last_answered", "name"])
        watches = list(open_watches(chat).select_related("to_chat"))
        subscribers = lock_chats(chat.user, [w.from_chat_id for w in watches])
        text = idle_text(chat)
        notices = [end_watch(w, subscribers, text, Outcome.NOTIFIED) for w in watches]
        return [notice for notice in notices if notice is not None]


def do_expire_watches(now: datetime) -> int:
    """Subscriptions past the reach window end with a notice saying so."""
    expired = list(
        IdleWatch.objects.filter(ended_at__isnull=True, expires_at__lte=now)
        .select_related("user", "to_chat")
        .order_by("user_id", "pk")[:200]
    )
    for watch in expired:
        with transaction.atomic():
            subscribers = lock_chats(watch.user, [watch.from_chat_id])
            end_watch(watch, subscribers, expired_text(watch), Outcome.EXPIRED)
    return len(expired)


def end_watch(
    watch: IdleWatch, subscribers: dict[str, Chat], text: str, outcome: str
) -> PeerMessage | None:
    """Ends the subscription once (a conditional update: never two notices), then sends
    its notice if the subscriber can still be reached; the caller holds the account lock
    and the subscribers' rows."""
    now = timezone.now()
    ended = IdleWatch.objects.filter(pk=watch.pk, ended_at__isnull=True)
    if not ended.update(ended_at=now, outcome=outcome):
        return None
    subscriber = subscribers.get(watch.from_chat_id)
    limits = fresh_limits()
    if subscriber is None or not is_reachable(subscriber, since=reach_since(limits)):
        IdleWatch.objects.filter(pk=watch.pk).update(outcome=Outcome.UNREACHABLE)
        return None
    notice = do_send_message(prepared_notice(watch, subscriber, text, now=now, limits=limits))
    IdleWatch.objects.filter(pk=watch.pk).update(notice=notice)
    return notice


def prepared_notice(watch: IdleWatch, subscriber: Chat, text: str, *, now, limits):
    """A notice from the watched chat to its subscriber; over the wake limit it waits."""
    out = Outgoing(watch.user, watch.to_chat, PeerMessage.SentBy.NOTICE)
    route = route_for(subscriber)
    wakes = route.wakes and chat_actions.requested_for_messages(subscriber) is None
    if wakes:
        try:
            counted = Outgoing(watch.user, None, PeerMessage.SentBy.NOTICE)
            check_limits(counted, subscriber, chain="", wakes=True, now=now, limits=limits)
        except (Refusal, StaleLimits):
            route, wakes = FOR_ITS_SESSION, False
    chain = new_id("chain")
    return PreparedSend(out, subscriber, text, None, chain, 1, None, route, wakes, 0, now, limits)


def idle_text(chat: Chat) -> str:
    status = Chat.Status(chat.status).label.lower()
    head = (
        f"{chat.name} ({chat.pk}) ended a turn and is now {status} "
        "(you asked to hear this with notifyWhenIdle)."
    )
    answer = first_lines(chat.last_answered)
    return f"{head}\nIts last answer begins:\n{answer}" if answer else head


def expired_text(watch: IdleWatch) -> str:
    hours = round((watch.expires_at - watch.created_at).total_seconds() / 3600)
    return (
        f"{watch.to_chat.name} ({watch.to_chat_id}) did not end a turn within {hours} hours, "
        "so your notifyWhenIdle request expired. Ask again if you still need to know."
    )


def first_lines(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()][:FIRST_LINES]
    joined = "\n".join(lines)
    return joined if len(joined) <= FIRST_CHARS else joined[: FIRST_CHARS - 1] + "…"
