"""Peer messages as card data, the one shape the cards render from: in the
conversation, in the Peers tab and the "sent" notice. Every choice a card makes
(which way, whose words, held here, which button) is decided here from the
message's fields, so the templates only print and test booleans."""

from dataclasses import dataclass, field

from django.utils import timezone

from chats.models import Chat, Entry
from peers.delivery_table import words
from peers.models import PeerMessage

# The group of messages between this chat and the person themselves.
YOU = "you"
CARD_KINDS = (Entry.Kind.PEER_IN, Entry.Kind.PEER_OUT)
RELATED = ("from_chat", "to_chat", "reply_to", "answer", "answer__from_chat", "answer__to_chat")


@dataclass(slots=True)
class AnswerCard:
    """An answer, shown inside the card of the message it answers."""

    message: PeerMessage
    author: str
    words: str
    # Its state is news unless it simply arrived at a chat.
    shows_state: bool
    cancellable: bool


@dataclass(slots=True)
class Card:
    message: PeerMessage
    words: str
    outgoing: bool
    other: Chat | None
    other_name: str
    peer_key: str
    # "You, as <chat>" on one the person sent in a chat's name, else "".
    sent_as: str
    is_answer: bool
    quote: str
    trail: str
    held: bool
    held_here: bool
    # Waits for the person's Approve or Deny (its chat's inbound is `ask`).
    awaiting_approval: bool
    cancellable: bool
    not_answered_yet: bool
    answer_refused: str
    answer: AnswerCard | None


def card_for(message: PeerMessage, chat: Chat) -> Card:
    """What the card of `message` shows, as seen from `chat`."""
    outgoing = message.from_chat_id == chat.pk
    other = message.to_chat if outgoing else message.from_chat
    is_answer = bool(message.reply_to_id) and message.reply_to.answer_id == message.pk
    answer = answer_card(message.answer) if message.answer_id else None
    # A delivered message to this chat that nothing answers (or refused to) yet.
    unanswered = not (outgoing or is_answer or answer or message.answer_refused)
    return Card(
        message=message,
        words=words(message),
        outgoing=outgoing,
        other=other,
        other_name=other.name if other else YOU,
        peer_key=other.pk if other else YOU,
        sent_as=sent_as(message),
        is_answer=is_answer,
        quote=message.reply_to.text if message.reply_to_id and not is_answer else "",
        trail=trail(message),
        held=message.is_held,
        held_here=message.is_held and not outgoing,
        awaiting_approval=message.is_awaiting_approval,
        cancellable=message.is_cancellable,
        not_answered_yet=unanswered and message.state == PeerMessage.State.DELIVERED,
        answer_refused="" if answer else message.answer_refused,
        answer=answer,
    )


def answer_card(answer: PeerMessage) -> AnswerCard:
    arrived = answer.state == PeerMessage.State.DELIVERED and answer.to_chat_id is not None
    return AnswerCard(
        message=answer,
        author=answer.from_chat.name if answer.from_chat else "You",
        words=words(answer),
        shows_state=not arrived,
        cancellable=answer.is_cancellable,
    )


def sent_as(message: PeerMessage) -> str:
    if message.sent_by == PeerMessage.SentBy.NOTICE:
        return "Crosstalk's notice (notifyWhenIdle)"
    if message.from_chat is not None and message.sent_by == PeerMessage.SentBy.PERSON:
        return f"You, as {message.from_chat.name}"
    return ""


def trail(message: PeerMessage) -> str:
    """How it got where it is, from the data: a message to an idle chat is woken and
    delivered within a second, and the card says so rather than seeming born Delivered.
    One a failed or stopped turn gave back says so (its note; peers.actions.give_back)."""
    went_back = message.note and message.state != PeerMessage.State.NOT_DELIVERED
    if message.delivered_at is None:
        if not (went_back and message.is_waiting):
            return ""
        sent, back = clock(message.created_at), clock(message.state_changed_at)
        return f"Sent {sent}, delivered, then went back {back}: {message.note}"
    if went_back:
        return f"{delivered_trail(message)}; it had gone back before: {message.note}"
    return delivered_trail(message)


def delivered_trail(message: PeerMessage) -> str:
    seconds = (message.delivered_at - message.created_at).total_seconds()
    took = f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.0f} min"
    woke = f"woke {message.to_chat.name}, then " if message.woke and message.to_chat else ""
    sent, delivered = clock(message.created_at), clock(message.delivered_at)
    return f"Sent {sent}, {woke}delivered {delivered} ({took} later)"


def clock(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M:%S")


def attach_cards(entries: list[Entry], chat: Chat) -> None:
    """Every card's message in one query, as `entry.card` (None: the message is gone).
    An answer shows inside the card it answers, so its own card is hidden, and so is
    an agent's entry linked to it by message id (the turn's text that became the
    answer, or the demo agent saying what came back)."""
    ids = {entry.message_id for entry in entries if entry.message_id and entry.kind in CARD_KINDS}
    found = PeerMessage.objects.filter(user_id=chat.user_id).select_related(*RELATED)
    found = found.in_bulk(ids) if ids else {}
    shown = set()
    for entry in entries:
        if entry.kind not in CARD_KINDS:
            continue
        message = found.get(entry.message_id)
        entry.card = card_for(message, chat) if message else None
        entry.hidden = bool(message and entry.card.is_answer and message.reply_to_id in found)
        if message and not entry.hidden:
            shown.update({message.pk, message.answer_id} - {None})
    for entry in entries:
        if entry.kind == Entry.Kind.ANSWER and entry.message_id in shown:
            entry.hidden = True


@dataclass
class PeerGroup:
    key: str
    other: Chat | None
    cards: list[Card] = field(default_factory=list)

    @property
    def count(self) -> int:
        """The cards the group shows: an answer sits inside its question's card, so it
        is not counted again."""
        return len(self.cards)


def conversation_groups(entries: list[Entry]) -> list[PeerGroup]:
    """The conversation's cards (attach_cards ran) by the other chat or the person,
    newest group first: the Peers tab's filters, each counting exactly the cards the
    conversation shows for it (an answer sits inside its question's card)."""
    groups: dict[str, PeerGroup] = {}
    for entry in reversed(entries):
        card = getattr(entry, "card", None)
        if card is None or getattr(entry, "hidden", False):
            continue
        group = groups.setdefault(card.peer_key, PeerGroup(card.peer_key, card.other))
        group.cards.append(card)
    return list(groups.values())


def keep_only_peer(entries: list[Entry], peer: str) -> None:
    """The conversation filtered to one group's cards (the Peers tab's filter)."""
    for entry in entries:
        card = getattr(entry, "card", None)
        if card is None or card.peer_key != peer:
            entry.hidden = True
