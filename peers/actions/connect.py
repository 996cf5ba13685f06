"""Connect two chats with a brief: both switched on, each told about the other."""

from django.db import transaction

from accounts.models import User
from chats.models import Chat
from kernel.refusals import Refusal, no_chat
from peers.actions.chat_state import do_set_peers
from peers.actions.locking import lock_chats
from peers.actions.record import record, record_refusal
from peers.actions.send import Outgoing, check_send, check_text, do_send_message, outside_chat
from peers.limits import current_limits
from peers.models import Activity, PeerMessage


def check_connect_chats(user: User, *, chat_ids: list[str], brief: str) -> list[PeerMessage]:
    """Each gets one message from the person naming the other.

    All or nothing: a refusal of either message leaves both switches as they were."""
    out = Outgoing(user, None, PeerMessage.SentBy.PERSON)
    try:
        with transaction.atomic():
            pairs = connectable_chats(user, chat_ids, brief)
            for chat, _ in pairs:
                if not chat.peers:
                    do_set_peers(chat, enabled=True)
            first, second = pairs[0][0], pairs[1][0]
            record(user.pk, Activity.Action.CONNECT, chat_id=first.pk, target_id=second.pk)
            return [
                do_send_message(check_send(out, chat, text=text, reply_to=None, wait_seconds=0))
                for chat, text in pairs
            ]
    except Refusal as refusal:
        record_refusal(user, refusal)
        raise


def connectable_chats(user: User, chat_ids: list[str], brief: str) -> list[tuple[Chat, str]]:
    """Each chat with the text it will get; the caller holds the account lock."""
    if len(chat_ids) != 2 or chat_ids[0] == chat_ids[1]:
        raise Refusal("invalid_input", "chats: name exactly two different chats.")
    chats = lock_chats(user, chat_ids)
    if len(chats) != 2:
        raise no_chat()
    first, second = chats[chat_ids[0]], chats[chat_ids[1]]
    for chat in (first, second):
        if chat.from_outside:
            raise outside_chat(chat)
    limits = current_limits()
    check_text(brief, limits)
    pairs = [(first, connect_text(second, brief)), (second, connect_text(first, brief))]
    for _, text in pairs:
        check_text(text, limits)
    return pairs


def connect_text(other: Chat, brief: str) -> str:
    where = " · ".join(part for part in (other.repository, other.branch) if part)
    return (
        f'You are connected with the chat "{other.name}" (id {other.pk}'
        f"{', ' + where if where else ''}). Read it with ReadChat and message it with "
        f"MessageChat.\n\n{brief}"
    )
