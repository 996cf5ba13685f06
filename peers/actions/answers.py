"""The final-text rule: a turn that received messages and did not write back
answers each sender with its final text. Answers are never answered, so an
exchange ends after one answer unless someone writes again."""

import logging

from django.db import DatabaseError, transaction

from chats import actions as chat_actions
from chats.models import Entry, Turn
from kernel.refusals import Refusal
from peers.actions.locking import lock_account
from peers.actions.record import publish_message
from peers.actions.send import Outgoing, check_answer_to_person, do_send_message, send
from peers.limits import current_limits
from peers.models import PeerMessage

logger = logging.getLogger(__name__)
# A deadlock victim or a dropped connection gets one more try.
ATTEMPTS = 2


def answer_from_final_text(turn: Turn) -> list[PeerMessage]:
    """One answer per sender, and every message of that sender the turn took reads
    answered by it (a batch taken at one step is answered whole)."""
    if not turn.final_text.strip():
        return []
    received = turn.messages_delivered.filter(reply_to__isnull=True, answer__isnull=True)
    received = received.exclude(sent_by=PeerMessage.SentBy.NOTICE)  # Crosstalk's: no answer
    received = list(received.select_related("from_chat", "to_chat").order_by("-created_at"))
    if not received:
        return []  # most turns: one read, not two
    written = set(turn.messages_sent.order_by().values_list("to_chat_id", flat=True))
    by_sender: dict[str | None, list[PeerMessage]] = {}
    for message in received:
        if message.from_chat_id not in written:
            by_sender.setdefault(message.from_chat_id, []).append(message)
    answers, answered = [], 0
    for batch in by_sender.values():  # newest first: the newest is the one replied to
        answer = send_answer(turn, batch[0])
        if answer is not None:
            do_link_answer(answer, batch[1:])
            answers.append(answer)
            answered += len(batch)
        elif batch[0].answer_refused:
            do_note_refused(batch[1:], batch[0].answer_refused)
    if answers:
        do_note_answers(turn, answers, taken=answered)
    return answers


def do_note_answers(turn: Turn, answers: list[PeerMessage], *, taken: int) -> None:
    """A turn the person prompted keeps its answer entry under the prompt (a card
    shows the answer too, but never only a card); one line says what else it answered.
    Any other turn's answer entry shows inside the card of the message it answered."""
    if turn.trigger != Turn.Trigger.PROMPT:
        chat_actions.do_link_answer_entry(turn, message_id=answers[0].pk)
        return
    messages = "1 message" if taken == 1 else f"{taken} messages"
    chat_actions.do_add_entry(
        turn.chat, kind=Entry.Kind.NOTICE, text=f"Answered your prompt and {messages}", turn=turn
    )


def do_link_answer(answer: PeerMessage, others: list[PeerMessage]) -> None:
    """The sender's other messages in the batch read answered by the same answer."""
    if not others:
        return
    with transaction.atomic():
        PeerMessage.objects.filter(pk__in=[m.pk for m in others], answer__isnull=True).update(
            answer=answer
        )
        for message in others:
            message.answer = answer
            publish_message(message)


def do_note_refused(others: list[PeerMessage], reason: str) -> None:
    """The batch's refused answer is the refusal of each of its messages (one notice)."""
    if not others:
        return
    with transaction.atomic():
        PeerMessage.objects.filter(pk__in=[m.pk for m in others]).update(answer_refused=reason)
        for message in others:
            message.answer_refused = reason
            publish_message(message)


def send_answer(turn: Turn, message: PeerMessage) -> PeerMessage | None:
    """Never lost silently: a refusal (a limit, outside_origin) is recorded on the
    message it answers; a database error (a deadlock, a lost connection) is tried
    once more, then recorded the same way."""
    out = Outgoing(turn.chat.user, turn.chat, PeerMessage.SentBy.AGENT)
    text = turn.final_text[: current_limits().max_text]
    for attempt in range(ATTEMPTS):
        try:
            if message.from_chat_id is None:
                return answer_the_person(out, message, text=text, turn=turn)
            return send(out, to=message.from_chat_id, text=text, reply_to=message.pk)
        except Refusal as refusal:
            do_refuse_answer(message, f"{refusal.code}: {refusal.message}")
            return None
        except DatabaseError:  # send's atomic block rolled it back (a savepoint if nested)
            logger.exception("The answer to %s failed (attempt %d).", message.pk, attempt + 1)
    do_refuse_answer(message, "server_error: the database refused it twice; write again.")
    return None


def do_refuse_answer(message: PeerMessage, reason: str) -> None:
    """The message's card reads "answer not sent: <reason>", and the chat that sent
    it gets a notice in its conversation (the person sees the card)."""
    reason = reason[:300]
    with transaction.atomic():
        PeerMessage.objects.filter(pk=message.pk).update(answer_refused=reason)
        message.answer_refused = reason
        if message.from_chat is not None:
            chat_actions.do_add_entry(
                message.from_chat,
                kind=Entry.Kind.NOTICE,
                text=f"{message.to_chat.name} answered, but the answer was not sent: {reason}",
                message_id=message.pk,
            )
        publish_message(message)


def answer_the_person(out: Outgoing, message: PeerMessage, *, text: str, turn: Turn):
    """An answer to a message from the person as themselves goes back to the person."""
    with transaction.atomic():
        lock_account(out.user.pk)
        return do_send_message(check_answer_to_person(out, message, text=text, turn=turn))
