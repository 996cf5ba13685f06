"""The agent's ListChats and ReadChat calls, counted against their hourly limit."""

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from chats.models import Chat, Entry
from chats.selectors import access_chat, get_latest_entries
from kernel.refusals import Refusal
from peers.actions.locking import lock_account
from peers.actions.record import record, refusals_recorded
from peers.actions.send import Outgoing, check_reachable, check_sender, check_taking_part
from peers.limits import current_limits
from peers.models import Activity, PeerMessage
from peers.selectors import offered_chats


def check_list_chats(chat: Chat) -> list[Chat]:
    with refusals_recorded(chat, target=None), transaction.atomic():
        check_list_read(chat)
        record(chat.user_id, Activity.Action.LIST, chat_id=chat.pk)
    return offered_chats(chat)


def check_read_chat(chat: Chat, *, target: str, limit: int = 20) -> list[Entry]:
    """The latest `limit` entries of another chat (clamped to 1–100, never refused)."""
    limit = min(max(limit, 1), 100)
    with refusals_recorded(chat, target=target), transaction.atomic():
        check_list_read(chat)
        other = readable_chat(chat, target)
        record(chat.user_id, Activity.Action.READ, chat_id=chat.pk, target_id=other.pk)
    entries = get_latest_entries(other, limit=limit * 2)
    return [entry for entry in entries if entry.kind != Entry.Kind.NOTICE][-limit:]


def check_peers_on(chat: Chat) -> None:
    """For the agent's routes whose actions do not check the switch themselves."""
    with refusals_recorded(chat, target=None):
        check_sender(Outgoing(chat.user, chat, PeerMessage.SentBy.AGENT))


def check_takes_part(chat: Chat) -> None:
    """For a face that offers the agent tools at all (MCP): the switch, then the origin."""
    with refusals_recorded(chat, target=None):
        check_taking_part(chat)


def readable_chat(chat: Chat, target: str) -> Chat:
    other = access_chat(chat.user, target)
    if other.pk == chat.pk:
        raise Refusal("not_yourself", "That is this chat itself; read another chat.")
    check_reachable(other, current_limits())
    return other


def check_list_read(chat: Chat) -> None:
    """The caller holds a transaction; the account lock makes the count exact."""
    check_taking_part(chat)
    lock_account(chat.user_id)
    limits = current_limits()
    since = timezone.now() - timedelta(hours=1)
    used = Activity.objects.filter(
        chat=chat, action__in=[Activity.Action.LIST, Activity.Action.READ], created_at__gte=since
    ).count()
    if used >= limits.list_read_per_hour:
        raise Refusal(
            "limit_list_read",
            f"This chat made {limits.list_read_per_hour} "
            "ListChats/ReadChat calls in the last hour. Work with what you have.",
        )
