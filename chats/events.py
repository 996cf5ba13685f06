"""Live updates: the one way state changes reach pages and runners, always after commit.

A push is a hint; pages refetch what changed from the database, so a lost push
costs a refresh, never data.
"""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

RUNNER_GROUP = "turn-runners"


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


def publish(user_id: int, kind: str, **data) -> None:
    """Tell every open page of the account that something changed, once committed."""
    event = {"type": "account.event", "kind": kind, **data}
    transaction.on_commit(lambda: group_send(account_group(user_id), event))


def wake_runners() -> None:
    transaction.on_commit(lambda: group_send(RUNNER_GROUP, {"type": "turns.requested"}))


def group_send(group: str, event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(group, event)
