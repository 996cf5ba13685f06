"""The final-text rule: a turn that received messages and did not write back
answers each sender with its final text. Answers are never answered, so an
exchange ends after one answer unless someone writes again."""

from django.db import transaction
from django.utils import timezone

from chats.models import Entry, Turn
from chats.refusals import Refusal
from peers.actions.locking import lock_account
from peers.actions.send import Outgoing, PreparedSend, do_send_message, send
from peers.delivery_table import TO_YOU
from peers.limits import current_limits
from peers.models import PeerMessage


def answer_from_final_text(turn: Turn) -> list[PeerMessage]:
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
    if answers:
        link_answer_entry(turn, answers[0])
    return answers


def link_answer_entry(turn: Turn, answer: PeerMessage) -> None:
    """The turn's answer entry is this answer: the pages show it once, inside its card."""
    entry = turn.entries.filter(kind=Entry.Kind.ANSWER, message_id="").order_by("-id").first()
    if entry is not None:
        entry.message_id = answer.pk
        entry.save(update_fields=["message_id"])


def send_answer(turn: Turn, message: PeerMessage) -> PeerMessage | None:
    out = Outgoing(turn.chat.user, turn.chat, PeerMessage.SentBy.AGENT)
    text = turn.final_text[: current_limits().max_text]
    try:
        if message.from_chat_id is None:
            return answer_the_person(out, message, text=text, turn=turn)
        return send(out, to=message.from_chat_id, text=text, reply_to=message.pk)
    except Refusal:
        return None  # recorded as a refused activity; the turn's text stays in its chat


def answer_the_person(out: Outgoing, message: PeerMessage, *, text: str, turn: Turn):
    """An answer to a message from the person as themselves goes back to the person."""
    with transaction.atomic():
        lock_account(out.user.pk)
        prepared = PreparedSend(
            out=out,
            recipient=None,
            text=text,
            parent=message,
            chain=message.chain,
            hop=message.hop + 1,
            turn=turn,
            route=TO_YOU,
            wakes=False,
            wait_seconds=0,
            now=timezone.now(),
        )
        return do_send_message(prepared)
