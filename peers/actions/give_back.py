"""A turn that fails or is stopped gives back what it took.

The messages a turn took (as its prompt, between its steps, as it finished) and did
not answer never reached an answer: they go back to Queued — held until you write,
like any message to a failed or stopped chat, so the person's next prompt sends them
on and that turn answers them. When the chat can no longer be sent to at all (its
switch is off: THE reach rule, peers.selectors.is_reachable) they are Not delivered,
with the reason. Either way each sending chat gets one notice for its batch, and the
card's trail says the message went back (its `note`).

agents.turns calls this inside the transaction that fails the turn; peers'
check_stop_chat inside the stop's. Every push leaves after commit."""

from django.db import transaction
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Chat, Entry, Turn
from peers import delivery_table
from peers.actions.locking import lock_messages
from peers.actions.notices import HELD, NOT_DELIVERED, tell_sender
from peers.actions.record import publish_message
from peers.models import PeerMessage
from peers.selectors import is_reachable, reach_since

State = PeerMessage.State
Reason = PeerMessage.Reason

FAILED = "its turn failed ({error})"
STOPPED = "its turn was stopped"
CANNOT_TAKE = "{why}, and {chat} no longer takes agent-to-agent messages"


def give_back_failed(turn: Turn, *, error: str) -> list[PeerMessage]:
    why = FAILED.format(error=error.strip()[:200] or "no reason given")
    return give_back_taken(turn, why=why, reason=Reason.TURN_FAILED)


def give_back_stopped(turn: Turn) -> list[PeerMessage]:
    return give_back_taken(turn, why=STOPPED, reason=Reason.OTHER)


def give_back_taken(turn: Turn, *, why: str, reason: str) -> list[PeerMessage]:
    """Give back every message `turn` (failed or cancelled: a turn that ran to its end
    is never touched) took and did not answer; `why` completes "went back: …". A
    message the turn answered (its `answer`, or the turn wrote to its sender: the
    final-text rule's own test) stays delivered. The caller holds the transaction that
    ends the turn (and the chat's row lock). Calling it again gives back nothing more."""
    ended = Turn.objects.filter(pk=turn.pk, state__in=[Turn.State.FAILED, Turn.State.CANCELLED])
    if not ended.exists():
        return []
    taken = turn.messages_delivered.filter(state=State.DELIVERED, answer__isnull=True)
    written = set(turn.messages_sent.order_by().values_list("to_chat_id", flat=True))
    with transaction.atomic():
        messages = lock_messages(taken.select_related("from_chat", "to_chat"))
        messages = [m for m in messages if m.from_chat_id not in written]
        if not messages:
            return []
        chat = Chat.objects.get(pk=turn.chat_id)
        if is_reachable(chat, since=reach_since()):
            hold_again(messages, note=why)
            state, note = HELD, why
        else:
            note = CANNOT_TAKE.format(why=why, chat=chat.name)
            not_delivered(messages, note=note, reason=reason)
            state = NOT_DELIVERED
        tell_senders(chat, messages, why=why, state=state, note=note)
    return messages


def hold_again(messages: list[PeerMessage], *, note: str) -> None:
    route = delivery_table.HELD_UNTIL_YOU_WRITE
    settle(messages, state=route.state, reason=route.reason, note=note)


def not_delivered(messages: list[PeerMessage], *, note: str, reason: str) -> None:
    settle(messages, state=State.NOT_DELIVERED, reason=reason, note=note, waiting_until=None)


def settle(messages: list[PeerMessage], **fields) -> None:
    """No longer delivered, nor in the turn that took them."""
    fields["note"] = fields["note"][:300]
    fields.update(path="", delivered_in_turn=None, delivered_at=None)
    PeerMessage.objects.filter(pk__in=[m.pk for m in messages]).update(
        state_changed_at=timezone.now(), **fields
    )
    for message in messages:
        for name, value in fields.items():
            setattr(message, name, value)
        publish_message(message)


def tell_senders(
    chat: Chat, messages: list[PeerMessage], *, why: str, state: str, note: str = ""
) -> None:
    """Each sending agent hears: one conversation notice per sending chat for its whole
    batch, and each message's own Notice (`state`, why: `note` or `why`). The person
    reads the cards."""
    by_sender: dict[str, list[PeerMessage]] = {}
    for message in messages:
        if message.from_chat_id is not None:
            by_sender.setdefault(message.from_chat_id, []).append(message)
        tell_sender(message, state, why=note or why)
    for batch in by_sender.values():
        newest = max(batch, key=lambda m: (m.created_at, m.pk))
        chat_actions.do_add_entry(
            newest.from_chat,
            kind=Entry.Kind.NOTICE,
            text=notice_text(chat, batch, why=why),
            message_id=newest.pk,
        )


def notice_text(chat: Chat, batch: list[PeerMessage], *, why: str) -> str:
    yours = "Your message" if len(batch) == 1 else f"Your {len(batch)} messages"
    if batch[0].state == State.NOT_DELIVERED:
        return f"{yours} to {chat.name} went back and {verb(batch)} not sent: {batch[0].note}"
    held = "it is" if len(batch) == 1 else "they are"
    return (
        f"{yours} to {chat.name} went back: {why}; {held} held until the person "
        f"writes to {chat.name}, and that turn answers."
    )


def verb(batch: list[PeerMessage]) -> str:
    return "was" if len(batch) == 1 else "were"
