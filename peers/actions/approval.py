"""The person approves or denies a message waiting for approval (a chat whose inbound
is `ask`): approved, it takes the fastest path its recipient's state offers now, as a
fresh send would; denied, it is cancelled (`denied`). Either way its sender hears."""

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from chats import actions as chat_actions
from kernel.refusals import Refusal
from peers.actions.cancel import no_message
from peers.actions.locking import lock_chats, lock_messages
from peers.actions.notices import APPROVED, DENIED, tell_sender
from peers.actions.record import publish_message, record, record_refusal
from peers.delivery_table import route_for
from peers.models import Activity, PeerMessage

State = PeerMessage.State
Reason = PeerMessage.Reason


def check_approve_message(user: User, *, message_id: str) -> PeerMessage:
    return decided(user, message_id, approve=True)


def check_deny_message(user: User, *, message_id: str) -> PeerMessage:
    return decided(user, message_id, approve=False)


def decided(user: User, message_id: str, *, approve: bool) -> PeerMessage:
    try:
        with transaction.atomic():
            message = lock_awaiting(user, str(message_id))
            (do_approve_message if approve else do_deny_message)(message)
        return message
    except Refusal as refusal:
        known = message_id if refusal.code == "not_awaiting_approval" else None
        record_refusal(user, refusal, message_id=known)
        raise


def lock_awaiting(user: User, message_id: str) -> PeerMessage:
    """The account and the recipient (a send's lock order, so the route is decided as a
    send's would be), then the message; refused unless it awaits approval."""
    found = PeerMessage.objects.filter(pk=message_id, user=user).values_list("to_chat_id")
    to_chat_id = found.first()
    if to_chat_id is None:
        raise no_message()
    lock_chats(user, [to_chat_id[0]])
    messages = lock_messages(
        PeerMessage.objects.filter(pk=message_id, user=user).select_related("from_chat", "to_chat")
    )
    if not messages:
        raise no_message()
    message = messages[0]
    if message.state != State.QUEUED or message.reason != Reason.AWAITING_APPROVAL:
        raise Refusal(
            "not_awaiting_approval",
            f"Message {message.pk} is not waiting for approval (it is {message.state}).",
        )
    return message


def do_approve_message(message: PeerMessage) -> None:
    """On by the route a send to its recipient would take now; a wake it needs is
    the person's doing, so it is not counted against the wake limit."""
    recipient = message.to_chat
    route = route_for(recipient)
    wakes = route.wakes and chat_actions.requested_for_messages(recipient) is None
    settle(message, route.state, route.reason, woke=wakes, action=Activity.Action.APPROVE)
    if route.turn:
        chat_actions.request_turn(
            recipient, trigger=route.turn, chain=message.chain, hop=message.hop
        )
    tell_sender(message, APPROVED)


def do_deny_message(message: PeerMessage) -> None:
    settle(message, State.CANCELLED, Reason.DENIED, woke=False, action=Activity.Action.DENY)
    tell_sender(message, DENIED)


def settle(message: PeerMessage, state: str, reason: str, *, woke: bool, action: str) -> None:
    now = timezone.now()
    message.state, message.reason, message.woke = state, reason, woke
    message.state_changed_at = now
    message.save(update_fields=["state", "reason", "woke", "state_changed_at"])
    record(
        message.user_id,
        action,
        chat_id=message.from_chat_id,
        target_id=message.to_chat_id,
        message_id=message.pk,
        now=now,
    )
    publish_message(message)
