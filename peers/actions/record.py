"""The activity log and the live push of a message: every change of peer
messaging leaves a row here and, after commit, one hint to the account's pages
and to the calls waiting on it."""

from contextlib import contextmanager
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from chats.models import Chat
from chats.selectors import account_chats
from kernel import events
from kernel.refusals import Refusal
from peers.models import PERSON_HOLDS, Activity, PeerMessage


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


# Refusals of one key (account, chat, target, message, code) within this long share a row.
REFUSALS_WINDOW = timedelta(minutes=1)


def record_refusal(
    user, refusal: Refusal, *, chat_id=None, to: str | None = None, message_id=None
) -> None:
    """Every refusal leaves a row: the chat that asked, the recipient it named (only
    when it is a chat of the account: another account's id is never stored), the
    message it concerned."""
    target = None
    if to is not None:
        target = account_chats(user).filter(pk=str(to)).values_list("pk", flat=True).first()
    count_refusal(user.pk, refusal.code, chat_id=chat_id, target_id=target, message_id=message_id)


def count_refusal(user_id: int, code: str, *, chat_id=None, target_id=None, message_id=None):
    """One row per key and minute, its `count` raised on each repeat: a caller refused in a
    loop adds a row a minute, never one per call."""
    now = timezone.now()
    key = {"chat_id": chat_id, "target_id": target_id, "message_id": message_id}
    with transaction.atomic():
        # The newest row only: two processes racing may each have made one, and raising
        # both would count this refusal twice.
        latest = (
            Activity.objects.filter(
                user_id=user_id,
                action=Activity.Action.REFUSED,
                detail=code,
                created_at__gt=now - REFUSALS_WINDOW,
                created_at__lte=now,
                **key,
            )
            .order_by("-created_at")
            .values_list("pk", flat=True)[:1]
        )
        raised = Activity.objects.filter(pk__in=list(latest)).update(count=F("count") + 1)
        if not raised:
            record(user_id, Activity.Action.REFUSED, detail=code, now=now, **key)


@contextmanager
def input_refusals_recorded(user, chat: Chat | None = None):
    """Around a face's parsing (a REST body, MCP arguments): bad input is activity too."""
    try:
        yield
    except Refusal as refusal:
        record_refusal(user, refusal, chat_id=getattr(chat, "pk", None))
        raise


@contextmanager
def refusals_recorded(chat: Chat, *, target: str | None):
    try:
        yield
    except Refusal as refusal:
        record_refusal(chat.user, refusal, chat_id=chat.pk, to=target)
        raise


# States after which no answer can come in time: a waiting sender stops waiting.
HOPELESS = {PeerMessage.State.CANCELLED, PeerMessage.State.NOT_DELIVERED}


def message_groups(message: PeerMessage, *, new: bool = False) -> list[str]:
    """The waiting calls this change concerns (peers.waiting listens), and only
    those: each group is one more trip to the channel layer on a send. A message just
    sent has no waiter of its own unless its sender waits (waiting_until is set)."""
    groups = []
    ends_a_wait = not new and (message.state in HOPELESS or message.reason in PERSON_HOLDS)
    if message.waiting_until is not None or ends_a_wait:  # its sender may wait on it
        groups.append(events.message_group(message.pk))
    if message.reply_to_id and message.reason == PeerMessage.Reason.AWAITED:
        groups.append(events.message_group(message.reply_to_id))  # the answer it waits for
    if message.to_chat_id and message.is_waiting and message.reason not in PERSON_HOLDS:
        groups.append(events.inbox_group(message.to_chat_id))
    return groups


def publish_message(message: PeerMessage, *, new: bool = False) -> None:
    """One hint per change, to every page of the account and to waiting calls:
    conversations, cards and the Peers tab all refetch on it."""
    events.publish(
        message.user_id,
        "message",
        groups=message_groups(message, new=new),
        chat=message.to_chat_id or message.from_chat_id,
        message=message.pk,
        to=message.to_chat_id,
        sender=message.from_chat_id,
        reply_to=message.reply_to_id,
        state=message.state,
        detail=message.detail,
    )
