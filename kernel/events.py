"""Live updates: the one way state changes reach pages and runners, always after commit.

A push is a hint; pages refetch what changed from the database, so a lost push
costs a refresh, never data.
"""

import asyncio
import logging
from concurrent.futures import Future

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

RUNNER_GROUP = "turn-runners"
PUSH_TIMEOUT_SECONDS = 3
logger = logging.getLogger(__name__)
# The server's event loop, once it runs (crosstalk.services binds it).
server_loop: asyncio.AbstractEventLoop | None = None


def use_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    global server_loop
    server_loop = loop


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


def message_group(message_id: str) -> str:
    """Calls waiting on one message: its answer, or its end."""
    return f"message-{message_id}"


def inbox_group(chat_id: str) -> str:
    """Calls long-polling one chat's inbox."""
    return f"inbox-{chat_id}"


def publish(user_id: int, kind: str, *, groups: list[str] = (), **data) -> None:
    """Tell every open page of the account (and the waiting calls in `groups`)
    that something changed, once committed."""
    event = {"type": "account.event", "kind": kind, **data}

    def send_all() -> None:
        for group in (account_group(user_id), *groups):
            group_send(group, event)

    # robust: a callback that raised would skip the ones after it (and reach the caller).
    transaction.on_commit(send_all, robust=True)


def wake_runners() -> None:
    event = {"type": "turns.requested"}
    transaction.on_commit(lambda: group_send(RUNNER_GROUP, event), robust=True)


def group_send(group: str, event: dict) -> None:
    """Send a hint; never raises: with Redis down the database still tells the truth."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        loop = server_loop
        if loop is not None and loop.is_running() and not on_loop(loop):
            # In the server, a request's thread hands the push to the loop and goes
            # on: the answer need not wait for Redis, and a push is only a hint.
            future = asyncio.run_coroutine_threadsafe(bounded_send(layer, group, event), loop)
            future.add_done_callback(log_failure)
            return
        async_to_sync(bounded_send)(layer, group, event)
    except Exception as error:
        logger.warning("A live push to %s failed: %s", group, error)


async def bounded_send(layer, group: str, event: dict) -> None:
    # A Redis that hangs instead of refusing must not hold the caller either.
    async with asyncio.timeout(PUSH_TIMEOUT_SECONDS):
        await layer.group_send(group, event)


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def log_failure(future: Future) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.warning("A live push failed: %s", future.exception())
