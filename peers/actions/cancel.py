"""The person cancels a message before it arrives, or removes it from a queue."""

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from kernel.refusals import Refusal
from peers.actions.locking import lock_messages
from peers.actions.notices import CANCELLED, REMOVED, tell_sender
from peers.actions.record import publish_message, record, record_refusal
from peers.models import Activity, PeerMessage

State = PeerMessage.State


def no_message() -> Refusal:
    return Refusal("no_message", "There is no such message in your account.")


def check_cancel_message(user: User, *, message_id: str) -> PeerMessage:
    try:
        return cancel_message(user, message_id)
    except Refusal as refusal:
        # Only a message of this account is named in the row (already_delivered).
        known = message_id if refusal.code == "already_delivered" else None
        record_refusal(user, refusal, message_id=known)
        raise


def cancel_message(user: User, message_id: str) -> PeerMessage:
    with transaction.atomic():
        found = lock_messages(PeerMessage.objects.filter(pk=str(message_id), user=user))
        if not found:
            raise no_message()
        message = found[0]
        if message.state == State.DELIVERED:
            raise Refusal(
                "already_delivered",
                "The message already reached its agent; send another to correct it.",
            )
        if message.is_cancellable:
            do_cancel_message(message)
    return message


def do_cancel_message(message: PeerMessage) -> None:
    now = timezone.now()
    removed = message.state == State.QUEUED
    message.state = State.CANCELLED
    message.reason = PeerMessage.Reason.REMOVED if removed else ""
    message.state_changed_at = now
    message.waiting_until = None
    message.save(update_fields=["state", "reason", "state_changed_at", "waiting_until"])
    record(
        message.user_id,
        Activity.Action.CANCEL,
        chat_id=message.from_chat_id,
        target_id=message.to_chat_id,
        message_id=message.pk,
        now=now,
    )
    publish_message(message)
    tell_sender(message, REMOVED if removed else CANCELLED)
