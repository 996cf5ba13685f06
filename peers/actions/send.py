"""Sending: docs/rules.md's checks in its order (check_*), then one write (do_send_message).

The checks return a frozen PreparedSend; do_send_message trusts it. This is
where a send happens."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.keys import new_id
from accounts.models import User
from chats import actions as chat_actions
from chats.models import Chat, Turn
from chats.selectors import access_chat
from kernel.idempotency import note_work
from kernel.refusals import Refusal, no_chat
from peers.actions import counters
from peers.actions.inserts import insert_all
from peers.actions.limits import (
    StaleLimits,
    cached_limits,
    check_limits,
    fresh_limits,
    limits_current,
)
from peers.actions.locking import lock_for_send
from peers.actions.notices import ANSWERED, tell_sender
from peers.actions.record import publish_message, record_refusal
from peers.actions.watch import do_watch
from peers.delivery_table import HELD, TO_YOU, Route, asks_first, route_for
from peers.limits import current_limits, pair_key
from peers.models import Activity, Limits, PeerMessage
from peers.selectors import is_reachable, reach_since

SentBy = PeerMessage.SentBy
Status = Chat.Status


@dataclass(frozen=True, slots=True)
class Outgoing:
    """Who sends: a chat's agent, the person as a chat, or the person as themselves."""

    user: User
    from_chat: Chat | None
    sent_by: str

    @property
    def by_agent(self) -> bool:
        return self.sent_by == SentBy.AGENT

    @property
    def by_notice(self) -> bool:
        return self.sent_by == SentBy.NOTICE


@dataclass(frozen=True, slots=True)
class PreparedSend:
    """A send that passed every check; the caller holds the account lock."""

    out: Outgoing
    recipient: Chat | None
    text: str
    parent: PeerMessage | None
    chain: str
    hop: int
    turn: Turn | None
    route: Route
    wakes: bool
    wait_seconds: float
    now: datetime
    limits: Limits | None = None


def check_send_message(
    sender: Chat,
    *,
    to: str,
    text: str,
    reply_to: str | None = None,
    wait_seconds: float = 0,
    notify_when_idle: bool = False,
) -> PeerMessage:
    """A chat's agent sends (MessageChat); with notify_when_idle it also subscribes to the
    recipient's next turn end (message.idle_watch), in the same transaction."""
    out = Outgoing(sender.user, sender, SentBy.AGENT)
    then = watch_after_send if notify_when_idle else None
    return send(out, to=to, text=text, reply_to=reply_to, wait_seconds=wait_seconds, then=then)


def watch_after_send(prepared: "PreparedSend", message: PeerMessage) -> None:
    message.idle_watch = do_watch(
        prepared.out.from_chat,
        prepared.recipient,
        now=prepared.now,
        limits=prepared.limits or current_limits(),
        message=message,
    )


def check_send_as_person(
    user: User, *, from_chat: str | None, to: str, text: str, reply_to: str | None = None
) -> PeerMessage:
    """The person sends, as a chat ("You, as that chat") or as themselves."""
    sender = None
    if from_chat is not None:
        try:
            sender = access_chat(user, from_chat)
        except Refusal as refusal:
            record_refusal(user, refusal, to=to)
            raise
    return send(Outgoing(user, sender, SentBy.PERSON), to=to, text=text, reply_to=reply_to)


def send(
    out: Outgoing,
    *,
    to: str,
    text: str,
    reply_to: str | None = None,
    wait_seconds: float = 0,
    then=None,
) -> PeerMessage:
    """The checks and the write, under the account lock; `then(prepared, message)` runs
    after the write in the same transaction."""
    try:
        with transaction.atomic():
            recipient = lock_for_send(
                out.user, from_chat=out.from_chat, to=to, person=not out.by_agent
            )
            prepared = check_send(
                out, recipient, text=text, reply_to=reply_to, wait_seconds=wait_seconds
            )
            message = do_send_message(prepared)
            if then is not None:
                then(prepared, message)
            return message
    except Refusal as refusal:
        record_refusal(out.user, refusal, chat_id=getattr(out.from_chat, "pk", None), to=to)
        raise


def check_send(
    out: Outgoing, recipient: Chat | None, *, text: str, reply_to: str | None, wait_seconds: float
) -> PreparedSend:
    """docs/rules.md's checks, in its order; the caller holds the account lock.

    They run on this process's copy of the limits; when it turns out stale (checked
    in the counters statement, and again before any refusal), on the saved row."""
    limits = cached_limits()
    for _ in range(3):
        try:
            return checked_send(out, recipient, limits, text, reply_to, wait_seconds)
        except StaleLimits:
            pass
        except Refusal:
            if limits_current(limits):
                raise
        limits = fresh_limits()
    return checked_send(out, recipient, limits, text, reply_to, wait_seconds)


def checked_send(
    out: Outgoing,
    recipient: Chat | None,
    limits: Limits,
    text: str,
    reply_to: str | None,
    wait_seconds: float,
) -> PreparedSend:
    check_sender(out)
    check_recipient(out, recipient, limits)
    check_text(text, limits)
    parent = check_reply_to(out, recipient, reply_to)
    turn = running_turn(out.from_chat) if out.by_agent else None
    chain, hop = chain_of(out, turn, parent)
    now = timezone.now()
    asks = asks_first(out.from_chat, recipient, by_agent=out.by_agent)
    route = route_for(recipient, awaited=is_awaited(parent, recipient, now), asks=asks)
    wakes = route.wakes and chat_actions.requested_for_messages(recipient) is None
    check_limits(out, recipient, chain=chain, wakes=wakes, now=now, limits=limits)
    wait = min(max(wait_seconds, 0), limits.max_wait_seconds)
    return PreparedSend(
        out, recipient, text, parent, chain, hop, turn, route, wakes, wait, now, limits
    )


def check_answer_to_person(
    out: Outgoing, parent: PeerMessage, *, text: str, turn: Turn
) -> PreparedSend:
    """A turn's final text answering what the person sent as themselves: it goes back
    to the person (no recipient chat, so no reach and no limits), in the parent's
    chain; the caller holds the account lock."""
    check_text(text, current_limits())
    hop = parent.hop + 1
    return PreparedSend(
        out, None, text, parent, parent.chain, hop, turn, TO_YOU, False, 0, timezone.now()
    )


def check_sender(out: Outgoing) -> None:
    """An agent's own switch, first of all (peers_off); a chat started from outside is
    told outside_origin instead, since switching it on would not let it take part.
    The person cannot write as such a chat either (outside_chat)."""
    if not out.by_agent and out.from_chat is not None and out.from_chat.from_outside:
        raise outside_chat(out.from_chat)
    if out.by_agent and not out.from_chat.peers:
        if out.from_chat.from_outside:
            raise outside_origin()
        raise Refusal(
            "peers_off",
            "Agent-to-agent messaging is off for this chat; ask the person to turn it on.",
        )


def check_origin(out: Outgoing) -> None:
    """After the recipient is known (docs/rules.md's order): with its switch on, an
    agent that does not take part was started from outside."""
    if out.by_agent and not out.from_chat.takes_part:
        raise outside_origin()


def check_taking_part(chat: Chat) -> None:
    """chat.takes_part as refusals, for the agent's calls that name no recipient."""
    out = Outgoing(chat.user, chat, SentBy.AGENT)
    check_sender(out)
    check_origin(out)


def outside_origin() -> Refusal:
    return Refusal(
        "outside_origin",
        "This chat was started from outside, so it can receive "
        "messages but cannot list, read or message other chats.",
    )


def outside_chat(chat: Chat) -> Refusal:
    """Connect and "send as" refuse a chat started from outside: its agent could never
    use what they give it, and its words must not pass for another chat's."""
    return Refusal(
        "outside_chat",
        f"{chat.name} was started from outside ({chat.get_origin_display()}): it receives "
        "messages, but cannot be connected with another chat or written as.",
    )


def check_recipient(out: Outgoing, recipient: Chat | None, limits: Limits) -> None:
    if recipient is None or recipient.deleted_at is not None:
        raise no_chat()
    if out.from_chat is not None and recipient.pk == out.from_chat.pk:
        raise Refusal("not_yourself", "That is this chat itself; message another chat.")
    check_origin(out)
    check_reachable(recipient, limits)


def check_reachable(chat: Chat, limits: Limits) -> None:
    """One rule for agents and the person, sends and reads alike, the one every list
    of the pages offers (peers.selectors.reachable)."""
    if not is_reachable(chat, since=reach_since(limits)):
        raise Refusal(
            "not_reachable",
            f"{chat.name} does not take part in agent-to-agent "
            f"messaging or has not run in the last {limits.reach_hours} hours. "
            "List the chats to see who you can reach.",
        )


def check_text(text: str, limits: Limits) -> None:
    if not text.strip():
        raise Refusal("empty_message", "The message is empty; write what you need to say.")
    if len(text) > limits.max_text:
        raise Refusal(
            "message_too_long",
            f"The message has {len(text)} characters; the most is "
            f"{limits.max_text}. Shorten it or split it.",
        )


def check_reply_to(out: Outgoing, recipient: Chat, reply_to: str | None) -> PeerMessage | None:
    if not reply_to:
        return None
    parent = PeerMessage.objects.filter(
        pk=str(reply_to), user=out.user, from_chat=recipient, to_chat=out.from_chat
    ).first()
    if parent is None:
        raise Refusal(
            "no_such_message",
            f"replyTo must name a message that {recipient.name} "
            "sent you; leave it out to start a new exchange.",
        )
    return parent


def running_turn(chat: Chat) -> Turn | None:
    if chat.status != Status.RUNNING:
        return None  # the chat was read in this request; no turn runs
    return chat.turns.filter(state=Turn.State.RUNNING).order_by("-started_at").first()


def chain_of(out: Outgoing, turn: Turn | None, parent: PeerMessage | None) -> tuple[str, int]:
    """Everything descending from one line of the person is one chain.

    The person's own messages and sends made outside any turn start a new one."""
    if not out.by_agent:
        return new_id("chain"), 1
    if parent is not None and (turn is None or not turn.chain):
        return parent.chain, parent.hop + 1
    if turn is not None and turn.chain:
        return turn.chain, turn.hop + 1
    return new_id("chain"), 1


def is_awaited(parent: PeerMessage | None, recipient: Chat | None, now) -> bool:
    """Is this an answer its recipient is waiting for inside a MessageChat call?"""
    return bool(
        parent
        and recipient is not None
        and parent.waiting_until
        and parent.waiting_until > now
        and parent.from_chat_id == recipient.pk
    )


def do_send_message(send: PreparedSend) -> PeerMessage:
    """Record the message and route it; the caller holds the account lock."""
    message = new_message(send)
    activity = Activity(
        user_id=send.out.user.pk,
        action=Activity.Action.MESSAGE,
        chat_id=getattr(send.out.from_chat, "pk", None),
        target_id=getattr(send.recipient, "pk", None),
        message_id=message.pk,
        created_at=send.now,
    )
    # The message, its entries, its activity row and its counters (under the account
    # lock, so no other send of the account adds to them meanwhile): one round trip
    # on PostgreSQL.
    entries = chat_actions.message_entries(
        message_id=message.pk,
        text=message.text,
        # Crosstalk's notice is no entry of the chat it is about: only its subscriber's.
        from_chat=None if send.out.by_notice else message.from_chat,
        to_chat=message.to_chat,
        turn=send.turn,
    )
    counts = counters.rows_for(message)
    insert_all([message], entries, [activity], then=counters.add_sql(counts) if counts else None)
    message._state.adding, message._state.db = False, "default"
    note_work(f"message:{message.pk}")  # a keyed request's claim, in this transaction
    if send.parent is not None:
        tell_answered(send.parent, message, awaited=send.route.reason == PeerMessage.Reason.AWAITED)
    if send.out.sent_by == SentBy.PERSON:
        # The person writing counts as writing to both chats: a fresh "without you".
        written = [c.pk for c in (send.out.from_chat, send.recipient) if c is not None]
        chat_actions.do_note_person_wrote(written, now=send.now)
    if send.route.turn:
        chat_actions.request_turn(
            send.recipient, trigger=send.route.turn, chain=message.chain, hop=message.hop
        )
    publish_message(message, new=True)
    return message


def tell_answered(parent: PeerMessage, answer: PeerMessage, *, awaited: bool) -> None:
    """The parent's first answer; its sender hears (unless its waiting call takes it)."""
    first = PeerMessage.objects.filter(pk=parent.pk, answer__isnull=True).update(answer=answer)
    if first and not awaited:
        parent.answer = answer
        tell_sender(parent, ANSWERED)


def new_message(send: PreparedSend) -> PeerMessage:
    out, route, now = send.out, send.route, send.now
    on_hold = route.path in (HELD, PeerMessage.Reason.AWAITING_APPROVAL)
    waits = send.wait_seconds > 0 and out.from_chat is not None and not on_hold
    delivered = route.state == PeerMessage.State.DELIVERED
    message = PeerMessage(
        user=out.user,
        from_chat=out.from_chat,
        to_chat=send.recipient,
        sent_by=out.sent_by,
        text=send.text,
        reply_to=send.parent,
        chain=send.chain,
        hop=send.hop,
        state=route.state,
        reason=route.reason,
        woke=send.wakes,
        sent_in_turn=send.turn,
        created_at=now,
        state_changed_at=now,
        waiting_until=now + timedelta(seconds=send.wait_seconds) if waits else None,
        delivered_at=now if delivered else None,
    )
    message.exchange = send.parent.exchange if send.parent else message.pk
    if out.from_chat is not None and send.recipient is not None:
        message.pair = pair_key(out.from_chat.pk, send.recipient.pk)
    return message
