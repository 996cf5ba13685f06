"""The kinds of inbox item, as data: one Kind per thing that can wait for the person.
A kind names the rows it is about (the account's, newest first), how one row reads as
an item, and what the page offers to do with it. Adding a kind is adding an entry to
KINDS."""

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import F, QuerySet
from django.db.models.functions import Coalesce

from chats.models import Chat, Turn
from origins.models import OriginReply
from peers.models import PeerMessage


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    label: str  # what the page calls the item
    rows: Callable[[object], QuerySet]  # the account's rows, each with `at` (its time)
    chat: Callable[[object], Chat | None]
    text: Callable[[object], str]
    message: Callable[[object], str | None] = lambda row: None
    # What the page offers: "open" (the chat), "send_on" (write to it), "remove" (cancel),
    # "decide" (approve or deny).
    actions: tuple[str, ...] = ("open",)


def messages(user) -> QuerySet:
    rows = PeerMessage.objects.filter(user=user).select_related("from_chat", "to_chat")
    return rows.annotate(at=F("created_at"))


def held(user) -> QuerySet:
    return messages(user).held()


def awaiting_approval(user) -> QuerySet:
    """Another chat's message to a chat that asks the person first."""
    return messages(user).filter(
        state=PeerMessage.State.QUEUED, reason=PeerMessage.Reason.AWAITING_APPROVAL
    )


def to_you(user) -> QuerySet:
    """Written to the person by a chat, not as the answer to what they sent."""
    answers = messages(user).filter(reply_to__isnull=False, reply_to__from_chat__isnull=True)
    rows = messages(user).filter(to_chat__isnull=True, from_chat__isnull=False)
    return rows.exclude(pk__in=answers.values("pk"))


def answer_to_you(user) -> QuerySet:
    """A chat's answer to a message the person sent as themselves."""
    return messages(user).filter(
        to_chat__isnull=True, reply_to__isnull=False, reply_to__from_chat__isnull=True
    )


def failed_turns(user) -> QuerySet:
    turns = Turn.objects.filter(chat__user=user, state=Turn.State.FAILED).select_related("chat")
    return turns.annotate(at=Coalesce("ended_at", "requested_at"))


def failed_outside_answers(user) -> QuerySet:
    replies = OriginReply.objects.filter(thread__chat__user=user, state=OriginReply.State.FAILED)
    return replies.select_related("thread__chat").annotate(at=F("created_at"))


KINDS = (
    Kind(
        "awaiting_approval",
        "Waits for your approval",
        awaiting_approval,
        chat=lambda m: m.to_chat,
        text=lambda m: f"From {m.from_chat.name if m.from_chat_id else 'you'}: {m.text}",
        message=lambda m: m.pk,
        actions=("decide",),
    ),
    Kind(
        "held",
        "Held until you write",
        held,
        chat=lambda m: m.to_chat,
        text=lambda m: m.text,
        message=lambda m: m.pk,
        actions=("send_on", "remove"),
    ),
    Kind(
        "to_you",
        "Written to you",
        to_you,
        chat=lambda m: m.from_chat,
        text=lambda m: m.text,
        message=lambda m: m.pk,
    ),
    Kind(
        "answer_to_you",
        "An answer to your message",
        answer_to_you,
        chat=lambda m: m.from_chat,
        text=lambda m: m.text,
        message=lambda m: m.pk,
    ),
    Kind(
        "failed_turn",
        "A turn failed",
        failed_turns,
        chat=lambda t: t.chat,
        text=lambda t: t.error or "The turn failed; no reason was given.",
    ),
    Kind(
        "origin_failed",
        "An outside answer could not be sent",
        failed_outside_answers,
        chat=lambda r: r.thread.chat,
        text=lambda r: r.last_error or "The answer could not be sent.",
    ),
)
BY_NAME = {kind.name: kind for kind in KINDS}
