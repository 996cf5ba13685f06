"""Where a sent message goes next: into a turn's prompt, between steps, as a turn
finishes, into an inbox, to a waiting call; held, sent on, or not delivered.

The runner (agents) and the hooks call these; each change is recorded with its
time, reason and path, and pushed after commit."""

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Chat, Entry, Turn
from peers import delivery_table
from peers.actions.locking import lock_account, lock_messages
from peers.actions.notices import HELD, NOT_DELIVERED, tell_sender
from peers.actions.record import publish_message
from peers.models import Activity, PeerMessage
from peers.selectors import waiting_for_delivery

State = PeerMessage.State
Reason = PeerMessage.Reason
Path = PeerMessage.Path
Status = Chat.Status


def mark_delivered(messages: list[PeerMessage], *, path: str, turn: Turn | None = None) -> None:
    """Caller holds a transaction and has locked the rows (or owns them)."""
    if not messages:
        return
    now = timezone.now()
    PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
        state=State.DELIVERED,
        reason="",
        path=path,
        delivered_in_turn=turn,
        delivered_at=now,
        state_changed_at=now,
    )
    Activity.objects.bulk_create(
        Activity(
            user_id=m.user_id,
            chat_id=m.to_chat_id or m.from_chat_id,
            action=Activity.Action.DELIVERY,
            target_id=m.from_chat_id,
            message_id=m.pk,
            detail=path,
            created_at=now,
        )
        for m in messages
    )
    for message in messages:
        message.state, message.reason, message.path = State.DELIVERED, "", path
        message.delivered_at, message.delivered_in_turn = now, turn
        publish_message(message)


def take(query, *, path: str, turn: Turn | None) -> list[PeerMessage]:
    with transaction.atomic():
        messages = lock_messages(query)
        mark_delivered(messages, path=path, turn=turn)
    return messages


def take_for_turn(turn: Turn) -> list[PeerMessage]:
    """Everything waiting for the chat goes in with its turn's prompt; held
    messages too when the person wrote and chose to send them on."""
    if not delivery_table.takes_peer_messages(turn):
        return []  # they wait behind it, for a turn of their own
    include_held = turn.trigger == Turn.Trigger.PROMPT and turn.send_queued
    query = waiting_for_delivery(turn.chat, include_held=include_held)
    return take(query, path=Path.TURN_PROMPT, turn=turn)


def deliver_between_steps(chat: Chat) -> list[PeerMessage]:
    """A running chat finished a step (PostToolUse, a demo step): it takes what is pending."""
    return take_pending(chat, path=Path.BETWEEN_STEPS)


def deliver_as_finished(chat: Chat) -> list[PeerMessage]:
    """A running chat is about to finish (Stop hook): it keeps going with what is pending."""
    return take_pending(chat, path=Path.AS_FINISHED)


def take_pending(chat: Chat, *, path: str) -> list[PeerMessage]:
    turn = chat.turns.filter(state=Turn.State.RUNNING).first()
    if not delivery_table.takes_peer_messages(turn):
        return []  # they stay pending; the turn's end sends them on
    query = waiting_for_delivery(chat).filter(state=State.PENDING)
    return take(query, path=path, turn=turn)


# How many waiting messages one agent tool's answer carries (the rest: ReadInbox).
TOOL_RESULT_MOST = 3


def take_for_tool_result(chat: Chat, *, most: int = TOOL_RESULT_MOST) -> tuple[list, int]:
    """An agent tool's answer carries what waits for its chat (path tool_result), so a
    session with no hooks gets its messages: the first `most`, and how many more wait.
    Held messages stay held; a turn answering the chat's origin takes none. Most calls
    find nothing: one look, no transaction."""
    query = waiting_for_delivery(chat)
    if not query.exists():
        return [], 0
    turn = chat.turns.filter(state=Turn.State.RUNNING).first()
    if not delivery_table.takes_peer_messages(turn):
        return [], 0
    with transaction.atomic():
        messages = lock_messages(query[:most])
        mark_delivered(messages, path=Path.TOOL_RESULT, turn=turn)
        left = query.count()
        if messages and turn is None and not left:
            # Its session took them: a wake or send-on for them would run on nothing.
            chat_actions.do_cancel_runner_requests(chat, why="Taken by its session's tool call.")
    return messages, left


def check_mark_seen(chat: Chat, *, ids: list[str]) -> list[PeerMessage]:
    """The poll inbox: marking seen is what delivers (reading never does)."""
    if delivery_table.answering_origin(chat):
        return []
    query = waiting_for_delivery(chat).filter(pk__in=[str(i) for i in ids])
    return take(query, path=Path.INBOX, turn=None)


def send_on_queue(chat: Chat) -> Turn | None:
    """After a turn or background work ends: what arrived meanwhile starts the next turn.

    Most turns end with nothing waiting: one look first, without the transaction and
    the chat's row lock (what a send commits after the look finds the chat idle, and
    routes itself)."""
    if not waiting_for_delivery(chat).exists():
        return None
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=chat.pk)
        leftover = waiting_for_delivery(chat)
        if chat.status == Status.WAITING:
            requeue(leftover.filter(state=State.PENDING), delivery_table.WITH_BACKGROUND_WORK)
            return None
        if chat.status != Status.IDLE or not leftover.exists():
            return None
        behind = Q(state=State.PENDING) | Q(reason=Reason.WITH_BACKGROUND_WORK)
        requeue(leftover.filter(behind), delivery_table.BEHIND_TURN)
        first = leftover.first()
        return chat_actions.request_turn(
            chat, trigger=Turn.Trigger.SEND_ON, chain=first.chain, hop=first.hop
        )


def requeue(query, route: delivery_table.Route) -> list[PeerMessage]:
    messages = list(query)
    now = timezone.now()
    PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
        state=route.state, reason=route.reason, state_changed_at=now
    )
    for message in messages:
        message.state, message.reason = route.state, route.reason
        publish_message(message)
    return messages


def hold_for_person(chat: Chat) -> None:
    """Stop holds: nothing restarts a chat the person stopped (or whose turn
    failed); a waiting sender stops waiting, and each sending agent hears. The caller
    holds a transaction."""
    for message in requeue(waiting_for_delivery(chat), delivery_table.HELD_UNTIL_YOU_WRITE):
        tell_sender(message, HELD)


def fail_delivery(turn: Turn, note: str, *, reason: str = Reason.AGENT_UNAVAILABLE) -> None:
    """The chat's agent could not start: the messages of its turn never reached it."""
    with transaction.atomic():
        messages = lock_messages(turn.messages_delivered.select_related("from_chat", "to_chat"))
        now = timezone.now()
        PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
            state=State.NOT_DELIVERED,
            reason=reason,
            path="",
            note=note[:300],
            state_changed_at=now,
            delivered_at=None,
            waiting_until=None,
        )
        for message in messages:
            message.state, message.reason, message.path = State.NOT_DELIVERED, reason, ""
            message.note = note[:300]
            publish_message(message)
            tell_sender_not_sent(message, note)


def tell_sender_not_sent(message: PeerMessage, note: str) -> None:
    """Its sending agent hears, as a Notice and in its conversation."""
    tell_sender(message, NOT_DELIVERED, why=note)
    if message.from_chat is None:
        return  # the person sees the state on the Peers tab
    chat_actions.do_add_entry(
        message.from_chat,
        kind=Entry.Kind.NOTICE,
        text=f"Your message to {message.to_chat.name} was not sent: {note}",
        message_id=message.pk,
    )


def take_awaited_answer(message: PeerMessage) -> PeerMessage | None:
    """A waiting MessageChat call takes its answer (path waiting_call)."""
    with transaction.atomic():
        query = PeerMessage.objects.filter(
            reply_to=message, state=State.PENDING, reason=Reason.AWAITED
        )
        answers = lock_messages(query.order_by("created_at", "id"))[:1]
        mark_delivered(answers, path=Path.WAITING_CALL)
    return answers[0] if answers else None


def end_wait(message: PeerMessage) -> PeerMessage | None:
    """The wait is over: take an answer that just came, else stop waiting for it.

    Under the account lock, so an answer is either taken here or routed as usual."""
    with transaction.atomic():
        lock_account(message.user_id)
        answer = take_awaited_answer(message)
        PeerMessage.objects.filter(pk=message.pk).update(waiting_until=None)
    return answer
