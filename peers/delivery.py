"""Where a message goes once sent: into a turn's prompt, between steps, as a
turn finishes, into an inbox, to a waiting call; held, sent on, or not delivered.

The runner (agents) and the hooks call these; each state change is recorded
with its time and path and pushed after commit."""

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Chat, Entry, Turn
from chats.refusals import Refusal
from peers import actions
from peers.framing import frame_all  # noqa: F401  (the runner frames through here)
from peers.limits import current_limits
from peers.models import Activity, PeerMessage
from peers.selectors import waiting_for_delivery

State = PeerMessage.State
Detail = PeerMessage.Detail
Status = Chat.Status


def mark_delivered(messages: list[PeerMessage], *, detail: str, turn: Turn | None = None) -> None:
    """Caller holds a transaction and has locked the rows (or owns them)."""
    if not messages:
        return
    now = timezone.now()
    PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
        state=State.DELIVERED,
        detail=detail,
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
            detail=detail,
            created_at=now,
        )
        for m in messages
    )
    for message in messages:
        message.state, message.detail, message.delivered_at = State.DELIVERED, detail, now
        message.delivered_in_turn = turn
        actions.publish_message(message)


def take(chat: Chat, query, *, detail: str, turn: Turn | None) -> list[PeerMessage]:
    with transaction.atomic():
        locked = PeerMessage.objects.select_for_update(no_key=True).filter(
            pk__in=query.values("pk")
        )
        ids = list(locked.values_list("pk", flat=True))
        messages = list(query.filter(pk__in=ids))
        mark_delivered(messages, detail=detail, turn=turn)
    return messages


def take_for_turn(turn: Turn) -> list[PeerMessage]:
    """Everything waiting for the chat goes in with its turn's prompt; held
    messages too when the person wrote and chose to send them on."""
    include_held = turn.trigger == Turn.Trigger.PROMPT and turn.send_queued
    query = waiting_for_delivery(turn.chat, include_held=include_held)
    return take(turn.chat, query, detail=Detail.TURN_PROMPT, turn=turn)


def deliver_between_steps(chat: Chat) -> list[PeerMessage]:
    """A running chat finished a step (PostToolUse, a demo step): it takes what is pending."""
    return take_pending(chat, detail=Detail.BETWEEN_STEPS)


def deliver_as_finished(chat: Chat) -> list[PeerMessage]:
    """A running chat is about to finish (Stop hook): it keeps going with what is pending."""
    return take_pending(chat, detail=Detail.AS_FINISHED)


def take_pending(chat: Chat, *, detail: str) -> list[PeerMessage]:
    turn = chat.turns.filter(state=Turn.State.RUNNING).first()
    query = waiting_for_delivery(chat).filter(state=State.PENDING)
    return take(chat, query, detail=detail, turn=turn)


def check_mark_seen(chat: Chat, *, ids: list[str]) -> list[PeerMessage]:
    """The poll inbox: marking seen is what delivers (reading never does)."""
    query = waiting_for_delivery(chat).filter(pk__in=[str(i) for i in ids])
    return take(chat, query, detail=Detail.INBOX, turn=None)


def answer_from_final_text(turn: Turn) -> list[PeerMessage]:
    """A turn that received messages and did not write back answers with its final text.

    Answers themselves are never answered, so an exchange ends after one answer."""
    if not turn.final_text.strip():
        return []
    received = turn.messages_delivered.filter(reply_to__isnull=True, answer__isnull=True)
    written = set(turn.messages_sent.values_list("to_chat_id", flat=True))
    answers, answered_senders = [], set()
    for message in received.select_related("from_chat", "to_chat").order_by("-created_at"):
        if message.from_chat_id in written or message.from_chat_id in answered_senders:
            continue
        answered_senders.add(message.from_chat_id)
        answer = send_answer(turn, message)
        if answer is not None:
            answers.append(answer)
    return answers


def send_answer(turn: Turn, message: PeerMessage) -> PeerMessage | None:
    sender = turn.chat
    out = actions.Outgoing(sender.user, sender, PeerMessage.SentBy.AGENT)
    text = turn.final_text[: current_limits().max_text]
    try:
        if message.from_chat_id is None:
            return answer_the_person(out, message, text=text, turn=turn)
        return actions.send(out, to=message.from_chat_id, text=text, reply_to=message.pk)
    except Refusal:
        return None  # recorded as a refused activity; the turn's text stays in its chat


def answer_the_person(out, message: PeerMessage, *, text: str, turn: Turn) -> PeerMessage:
    """An answer to a message from the person as themselves goes back to the person."""
    with transaction.atomic():
        actions.lock_account(out.user.pk)
        return actions.do_send_message(
            out,
            None,
            text=text,
            parent=message,
            chain=message.chain,
            hop=message.hop + 1,
            turn=turn,
        )


def send_on_queue(chat: Chat) -> Turn | None:
    """After a turn or background work ends: what arrived meanwhile starts the next turn."""
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=chat.pk)
        leftover = waiting_for_delivery(chat)
        if chat.status == Status.WAITING:
            requeue(leftover.filter(state=State.PENDING), Detail.WITH_BACKGROUND_WORK)
            return None
        if chat.status != Status.IDLE or not leftover.exists():
            return None
        requeue(
            leftover.filter(Q(state=State.PENDING) | Q(detail=Detail.WITH_BACKGROUND_WORK)),
            Detail.BEHIND_TURN,
        )
        first = leftover.first()
        return chat_actions.request_turn(
            chat, trigger=Turn.Trigger.SEND_ON, chain=first.chain, hop=first.hop
        )


def requeue(query, detail: str) -> None:
    messages = list(query)
    now = timezone.now()
    PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
        state=State.QUEUED, detail=detail, state_changed_at=now
    )
    for message in messages:
        message.state, message.detail = State.QUEUED, detail
        actions.publish_message(message)


def hold_for_stopped(chat: Chat) -> None:
    """Stop holds: nothing restarts a chat the person stopped; a waiting sender stops waiting."""
    requeue(waiting_for_delivery(chat), Detail.HELD)


def fail_delivery(turn: Turn, reason: str) -> None:
    """The chat's agent could not start: the messages of its turn never reached it."""
    with transaction.atomic():
        locked = turn.messages_delivered.select_for_update(no_key=True, of=("self",))
        messages = list(locked.select_related("from_chat", "to_chat"))
        now = timezone.now()
        PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
            state=State.NOT_DELIVERED,
            detail=reason[:200],
            state_changed_at=now,
            delivered_at=None,
            waiting_until=None,
        )
        for message in messages:
            message.state, message.detail = State.NOT_DELIVERED, reason[:200]
            actions.publish_message(message)
            tell_sender_not_sent(message, reason)


def tell_sender_not_sent(message: PeerMessage, reason: str) -> None:
    if message.from_chat is None:
        return  # the person sees the state on the Peers tab
    chat_actions.do_add_entry(
        message.from_chat,
        kind=Entry.Kind.NOTICE,
        text=f"Your message to {message.to_chat.name} was not sent: {reason}",
        message_id=message.pk,
    )


def take_awaited_answer(message: PeerMessage) -> PeerMessage | None:
    """A waiting MessageChat call takes its answer (path waiting_call)."""
    with transaction.atomic():
        answer = (
            PeerMessage.objects.select_for_update(no_key=True)
            .filter(reply_to=message, state=State.PENDING, detail=Detail.WAITING_CALL)
            .first()
        )
        if answer is not None:
            mark_delivered([answer], detail=Detail.WAITING_CALL)
    return answer


def end_wait(message: PeerMessage) -> PeerMessage | None:
    """The wait is over: take an answer that just came, else stop waiting for it.

    Under the account lock, so an answer is either taken here or routed as usual."""
    with transaction.atomic():
        actions.lock_account(message.user_id)
        answer = take_awaited_answer(message)
        PeerMessage.objects.filter(pk=message.pk).update(waiting_until=None)
    return answer
