"""Every state change of peer messaging: sending, cancelling, connecting, the
agent's list / read / seen calls, and the limits. check_* validates and holds the
limits, then calls do_*; deliveries live in peers/delivery.py."""

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from accounts.keys import new_id
from accounts.models import User
from chats import actions as chat_actions
from chats import events
from chats.models import Chat, Entry, Turn
from chats.refusals import Refusal, no_chat
from chats.selectors import get_latest_entries
from peers.limits import check_limits, current_limits, pair_key
from peers.models import Activity, Limits, PeerMessage
from peers.selectors import TAKES_BETWEEN_STEPS, is_reachable, reach_since, reachable_chats

State = PeerMessage.State
Detail = PeerMessage.Detail
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


def lock_account(user_id: int) -> None:
    """One account's sends, wakes and list/read calls are counted under one row
    lock, so N racing senders can never push a counter past its limit.

    NO KEY UPDATE: inserts that reference the row (KEY SHARE) must not deadlock
    with it. SQLite has no row locks: its IMMEDIATE transactions already
    serialize every writer, so the query would only cost time there."""
    if connection.features.has_select_for_update:
        User.objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk").first()


def record(
    user_id: int,
    action: str,
    *,
    chat_id=None,
    target_id=None,
    message_id=None,
    detail: str = "",
    now=None,
) -> None:
    Activity.objects.create(
        user_id=user_id,
        chat_id=chat_id,
        action=action,
        target_id=target_id,
        message_id=message_id,
        detail=detail,
        created_at=now or timezone.now(),
    )


def record_refusal(out: Outgoing, to: str | None, refusal: Refusal) -> None:
    target = Chat.objects.filter(pk=str(to), user=out.user).values_list("pk", flat=True).first()
    with transaction.atomic():
        record(
            out.user.pk,
            Activity.Action.REFUSED,
            chat_id=getattr(out.from_chat, "pk", None),
            target_id=target,
            detail=refusal.code,
        )


# Sending ------------------------------------------------------------------


def check_send_message(
    sender: Chat, *, to: str, text: str, reply_to: str | None = None, wait_seconds: float = 0
) -> PeerMessage:
    """A chat's agent sends (MessageChat)."""
    return send(
        Outgoing(sender.user, sender, SentBy.AGENT),
        to=to,
        text=text,
        reply_to=reply_to,
        wait_seconds=wait_seconds,
    )


def check_send_as_person(
    user: User, *, from_chat: str | None, to: str, text: str, reply_to: str | None = None
) -> PeerMessage:
    """The person sends, as a chat ("You, as that chat") or as themselves."""
    sender = None
    if from_chat is not None:
        sender = Chat.objects.filter(pk=str(from_chat), user=user).first()
        if sender is None:
            refusal = no_chat()
            record_refusal(Outgoing(user, None, SentBy.PERSON), to, refusal)
            raise refusal
    return send(Outgoing(user, sender, SentBy.PERSON), to=to, text=text, reply_to=reply_to)


def send(
    out: Outgoing, *, to: str, text: str, reply_to: str | None = None, wait_seconds: float = 0
) -> PeerMessage:
    try:
        with transaction.atomic():
            recipient = lock_recipient(out.user, to)
            return check_and_send(
                out, recipient, text=text, reply_to=reply_to, wait_seconds=wait_seconds
            )
    except Refusal as refusal:
        record_refusal(out, to, refusal)
        raise


def lock_recipient(user: User, to: str) -> Chat | None:
    """The recipient and its account, locked in one statement (see lock_account).

    A missing recipient locks nothing: the send is refused anyway."""
    chats = Chat.objects.filter(pk=str(to), user=user)
    if not connection.features.has_select_for_update:
        return chats.first()
    return chats.select_related("user").select_for_update(no_key=True, of=("self", "user")).first()


def check_and_send(
    out: Outgoing, recipient: Chat | None, *, text: str, reply_to: str | None, wait_seconds: float
) -> PeerMessage:
    """SPEC.md's checks, in its order; the caller holds the account lock."""
    limits = current_limits()
    now = timezone.now()
    check_sender(out)
    if recipient is None:
        raise no_chat()
    if out.from_chat is not None and recipient.pk == out.from_chat.pk:
        raise Refusal("not_yourself", "That is this chat itself; message another chat.")
    if out.by_agent and out.from_chat.from_outside:
        raise outside_origin()
    check_reachable(out, recipient, limits)
    check_text(text, limits)
    parent = check_reply_to(out, recipient, reply_to)
    turn = running_turn(out.from_chat) if out.by_agent else None
    chain, hop = chain_of(out, turn, parent)
    waiting_answer = is_awaited(parent, recipient, now)
    wakes = would_wake(recipient, waiting_answer)
    check_limits(
        user_id=out.user.pk,
        sender=out.from_chat,
        by_agent=out.by_agent,
        recipient=recipient,
        chain=chain,
        wakes=wakes,
        now=now,
        limits=limits,
    )
    wait = min(max(wait_seconds, 0), limits.max_wait_seconds)
    return do_send_message(
        out,
        recipient,
        text=text,
        parent=parent,
        chain=chain,
        hop=hop,
        turn=turn,
        waiting_answer=waiting_answer,
        wakes=wakes,
        wait=wait,
        now=now,
    )


def check_sender(out: Outgoing) -> None:
    if out.by_agent and not out.from_chat.peers:
        raise Refusal(
            "peers_off",
            "Agent-to-agent messaging is off for this chat; ask the person to turn it on.",
        )


def outside_origin() -> Refusal:
    return Refusal(
        "outside_origin",
        "This chat was started from outside, so it can receive "
        "messages but cannot list, read or message other chats.",
    )


def check_reachable(out: Outgoing, recipient: Chat, limits: Limits) -> None:
    # The person may write to any chat that takes part; agents only to recent ones.
    reachable = (
        recipient.peers if not out.by_agent else is_reachable(recipient, since=reach_since(limits))
    )
    if not reachable:
        raise Refusal(
            "not_reachable",
            f"{recipient.name} does not take part in agent-to-agent "
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


def is_awaited(parent: PeerMessage | None, recipient: Chat, now) -> bool:
    """Is this an answer its recipient is waiting for inside a MessageChat call?"""
    return bool(
        parent
        and parent.waiting_until
        and parent.waiting_until > now
        and parent.from_chat_id == recipient.pk
    )


def would_wake(recipient: Chat, waiting_answer: bool) -> bool:
    """A message to an idle chat wakes it, unless a turn is already on its way."""
    if recipient.status != Status.IDLE or waiting_answer:
        return False
    return not recipient.turns.filter(state=Turn.State.REQUESTED).exists()


def route(recipient: Chat | None, *, waiting_answer: bool) -> tuple[str, str]:
    """(state, detail) by the recipient's state: SPEC.md's delivery table."""
    if recipient is None:
        return State.DELIVERED, Detail.TO_YOU
    if waiting_answer:
        return State.PENDING, Detail.WAITING_CALL
    if recipient.status == Status.RUNNING and recipient.agent in TAKES_BETWEEN_STEPS:
        return State.PENDING, Detail.NEXT_STEP
    if recipient.status == Status.RUNNING:
        return State.QUEUED, Detail.BEHIND_TURN
    if recipient.status == Status.IDLE:
        return State.QUEUED, Detail.WAKING
    if recipient.status == Status.WAITING:
        return State.QUEUED, Detail.WITH_BACKGROUND_WORK
    return State.QUEUED, Detail.HELD


def do_send_message(
    out: Outgoing,
    recipient: Chat | None,
    *,
    text: str,
    parent: PeerMessage | None,
    chain: str,
    hop: int,
    turn: Turn | None,
    waiting_answer: bool = False,
    wakes: bool = False,
    wait: float = 0,
    now=None,
) -> PeerMessage:
    """Record the message and route it; the caller holds the account lock."""
    now = now or timezone.now()
    state, detail = route(recipient, waiting_answer=waiting_answer)
    waits = wait > 0 and detail != Detail.HELD and out.from_chat is not None
    message = PeerMessage(
        user=out.user,
        from_chat=out.from_chat,
        to_chat=recipient,
        sent_by=out.sent_by,
        text=text,
        reply_to=parent,
        chain=chain,
        hop=hop,
        state=state,
        detail=detail,
        woke=wakes,
        sent_in_turn=turn,
        created_at=now,
        state_changed_at=now,
        waiting_until=now + timedelta(seconds=wait) if waits else None,
        delivered_at=now if state == State.DELIVERED else None,
    )
    message.exchange = parent.exchange if parent else message.pk
    message.pair = pair_key(out.from_chat.pk, recipient.pk) if out.from_chat and recipient else ""
    message.save(force_insert=True)
    if parent is not None:
        PeerMessage.objects.filter(pk=parent.pk, answer__isnull=True).update(answer=message)
    add_entries(message, turn=turn)
    record(
        out.user.pk,
        Activity.Action.MESSAGE,
        chat_id=getattr(out.from_chat, "pk", None),
        target_id=getattr(recipient, "pk", None),
        message_id=message.pk,
        now=now,
    )
    if not out.by_agent:
        # The person writing counts as writing to both chats: a fresh "without you".
        written = [chat.pk for chat in (out.from_chat, recipient) if chat is not None]
        Chat.objects.filter(pk__in=written).update(person_wrote_at=now)
    start_turn_for(message, recipient)
    publish_message(message)
    return message


def add_entries(message: PeerMessage, *, turn: Turn | None) -> None:
    entries = []
    if message.from_chat is not None:
        entries.append(
            Entry(
                chat=message.from_chat,
                turn=turn,
                kind=Entry.Kind.PEER_OUT,
                text=message.text,
                message_id=message.pk,
            )
        )
    if message.to_chat is not None:
        entries.append(
            Entry(
                chat=message.to_chat,
                kind=Entry.Kind.PEER_IN,
                text=message.text,
                message_id=message.pk,
            )
        )
    Entry.objects.bulk_create(entries)


def start_turn_for(message: PeerMessage, recipient: Chat | None) -> None:
    if message.detail == Detail.WAKING:
        chat_actions.request_turn(
            recipient, trigger=Turn.Trigger.WAKE, chain=message.chain, hop=message.hop
        )
    elif message.detail == Detail.BEHIND_TURN:
        chat_actions.request_turn(
            recipient, trigger=Turn.Trigger.SEND_ON, chain=message.chain, hop=message.hop
        )


def publish_message(message: PeerMessage) -> None:
    """One hint per change, to every page of the account and to waiting calls:
    conversations, cards and the Peers tab all refetch on it."""
    events.publish(
        message.user_id,
        "message",
        chat=message.to_chat_id or message.from_chat_id,
        message=message.pk,
        to=message.to_chat_id,
        sender=message.from_chat_id,
        reply_to=message.reply_to_id,
        state=message.state,
        detail=message.detail,
    )


# Cancelling, connecting ---------------------------------------------------


def check_cancel_message(user: User, *, message_id: str) -> PeerMessage:
    with transaction.atomic():
        message = (
            PeerMessage.objects.select_for_update(no_key=True)
            .filter(pk=str(message_id), user=user)
            .first()
        )
        if message is None:
            raise Refusal("no_message", "There is no such message in your account.")
        if message.state == State.DELIVERED:
            raise Refusal(
                "already_delivered",
                "The message already reached its agent; send another to correct it.",
            )
        if message.state in (State.PENDING, State.QUEUED):
            do_cancel_message(message)
    return message


def do_cancel_message(message: PeerMessage) -> None:
    now = timezone.now()
    removed = message.state == State.QUEUED
    message.state = State.CANCELLED
    message.detail = Detail.REMOVED if removed else ""
    message.state_changed_at = now
    message.waiting_until = None
    message.save(update_fields=["state", "detail", "state_changed_at", "waiting_until"])
    record(
        message.user_id,
        Activity.Action.CANCEL,
        chat_id=message.from_chat_id,
        target_id=message.to_chat_id,
        message_id=message.pk,
        now=now,
    )
    publish_message(message)


def check_connect_chats(user: User, *, chat_ids: list[str], brief: str) -> list[PeerMessage]:
    """Both switched on; each gets one message from the person naming the other.

    All or nothing: a refusal of either message leaves both switches as they were."""
    out = Outgoing(user, None, SentBy.PERSON)
    try:
        with transaction.atomic():
            lock_account(user.pk)
            pairs = connectable_chats(user, chat_ids, brief)
            for chat, _ in pairs:
                if not chat.peers:
                    chat_actions.do_set_peers(chat, enabled=True)
            record(
                user.pk, Activity.Action.CONNECT, chat_id=pairs[0][0].pk, target_id=pairs[1][0].pk
            )
            return [
                check_and_send(out, chat, text=text, reply_to=None, wait_seconds=0)
                for chat, text in pairs
            ]
    except Refusal as refusal:
        record_refusal(out, None, refusal)
        raise


def connectable_chats(user: User, chat_ids: list[str], brief: str) -> list[tuple[Chat, str]]:
    """Each chat with the text it will get; the caller holds the account lock."""
    if len(chat_ids) != 2 or chat_ids[0] == chat_ids[1]:
        raise Refusal("invalid_input", "chats: name exactly two different chats.")
    found = Chat.objects.filter(user=user, pk__in=[str(i) for i in chat_ids])
    if connection.features.has_select_for_update:
        found = found.select_for_update(no_key=True)
    chats = {chat.pk: chat for chat in found}
    if len(chats) != 2:
        raise no_chat()
    first, second = chats[chat_ids[0]], chats[chat_ids[1]]
    limits = current_limits()
    check_text(brief, limits)
    pairs = [(first, connect_text(second, brief)), (second, connect_text(first, brief))]
    for _, text in pairs:
        check_text(text, limits)
    return pairs


def connect_text(other: Chat, brief: str) -> str:
    where = " · ".join(part for part in (other.repository, other.branch) if part)
    return (
        f'You are connected with the chat "{other.name}" (id {other.pk}'
        f"{', ' + where if where else ''}). Read it with ReadChat and message it with "
        f"MessageChat.\n\n{brief}"
    )


# The agent's list, read and seen calls ------------------------------------


def check_list_chats(chat: Chat) -> list[Chat]:
    with refusals_recorded(chat, target=None), transaction.atomic():
        check_list_read(chat)
        record(chat.user_id, Activity.Action.LIST, chat_id=chat.pk)
    return reachable_chats(chat)


def check_read_chat(chat: Chat, *, target: str, limit: int = 20) -> list[Entry]:
    with refusals_recorded(chat, target=target), transaction.atomic():
        check_list_read(chat)
        other = readable_chat(chat, target)
        record(chat.user_id, Activity.Action.READ, chat_id=chat.pk, target_id=other.pk)
    entries = get_latest_entries(other, limit=limit * 2)
    return [entry for entry in entries if entry.kind != Entry.Kind.NOTICE][-limit:]


@contextmanager
def refusals_recorded(chat: Chat, *, target: str | None):
    try:
        yield
    except Refusal as refusal:
        record_refusal(Outgoing(chat.user, chat, SentBy.AGENT), target, refusal)
        raise


def readable_chat(chat: Chat, target: str) -> Chat:
    other = Chat.objects.filter(pk=str(target), user_id=chat.user_id).first()
    if other is None:
        raise no_chat()
    if other.pk == chat.pk:
        raise Refusal("not_yourself", "That is this chat itself; read another chat.")
    limits = current_limits()
    if not is_reachable(other, since=reach_since(limits)):
        raise Refusal(
            "not_reachable",
            f"{other.name} does not take part or has not run in "
            f"the last {limits.reach_hours} hours. List the chats to see who you can reach.",
        )
    return other


def check_list_read(chat: Chat) -> None:
    """The caller holds a transaction; the account lock makes the count exact."""
    check_sender(Outgoing(chat.user, chat, SentBy.AGENT))
    if chat.from_outside:
        raise outside_origin()
    lock_account(chat.user_id)
    limits = current_limits()
    since = timezone.now() - timedelta(hours=1)
    used = Activity.objects.filter(
        chat=chat, action__in=[Activity.Action.LIST, Activity.Action.READ], created_at__gte=since
    ).count()
    if used >= limits.list_read_per_hour:
        raise Refusal(
            "limit_list_read",
            f"This chat made {limits.list_read_per_hour} "
            "ListChats/ReadChat calls in the last hour. Work with what you have.",
        )


# Limits -------------------------------------------------------------------


def do_set_limits(values: dict[str, int], *, user: User | None = None) -> Limits:
    """Validated like the admin form; takes effect on the next send everywhere.

    With `user` (the admin), one activity row per changed limit names its old and new value."""
    with transaction.atomic():
        limits = locked_limits()
        old = {name: getattr(limits, name) for name in values}
        for name, value in values.items():
            setattr(limits, name, value)
        try:
            limits.full_clean()
        except ValidationError as error:
            field, problems = next(iter(error.message_dict.items()))
            raise Refusal("invalid_input", f"{field}: {problems[0]}") from None
        if limits._state.adding:
            limits.save(force_insert=True)
        else:
            limits.save(update_fields=[*values, "updated_at"])
        now = timezone.now()
        for name, value in values.items():
            if user is not None and old[name] != value:
                detail = f"{name}={value} (was {old[name]})"
                record(user.pk, Activity.Action.LIMITS, detail=detail, now=now)
    return limits


def locked_limits() -> Limits:
    """The one row, locked so two admins' changes never record the same old value."""
    rows = Limits.objects.filter(pk=1)
    if connection.features.has_select_for_update:
        rows = rows.select_for_update()
    return rows.first() or Limits(pk=1)
