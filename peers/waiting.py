"""MessageChat with wait_seconds: the call waits for the answer on the channel
layer, so no database connection or worker thread is held during the wait, and
sender and answer may be handled by different processes."""

import asyncio
import time

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from chats import events
from chats.models import Chat
from peers import actions, delivery
from peers.models import PeerMessage

# States that end a wait at once: the answer cannot come in time.
HOPELESS = {PeerMessage.State.CANCELLED, PeerMessage.State.NOT_DELIVERED}


async def send_and_wait(
    sender: Chat, *, to: str, text: str, reply_to: str | None = None, wait_seconds: float = 0
) -> tuple[PeerMessage, PeerMessage | None]:
    layer = get_channel_layer()
    group = events.account_group(sender.user_id)
    channel = await layer.new_channel()
    # Listen before sending, so an answer that comes at once is not missed.
    await layer.group_add(group, channel)
    try:
        message = await sync_to_async(send_then_release)(
            sender, to=to, text=text, reply_to=reply_to, wait_seconds=wait_seconds
        )
        if message.waiting_until is None:
            return message, None
        answer = await wait_for_answer(layer, channel, message)
    finally:
        await layer.group_discard(group, channel)
    message = await PeerMessage.objects.select_related("answer").aget(pk=message.pk)
    return message, answer


def send_then_release(sender: Chat, **fields) -> PeerMessage:
    message = actions.check_send_message(sender, **fields)
    if message.waiting_until is not None:
        release_connection()
    return message


def release_connection() -> None:
    """Give this thread's database connection back (to the pool) before a long wait.

    Not inside an atomic block: that is a test's transaction, which must stay open."""
    if not connection.in_atomic_block:
        connection.close()


async def wait_for_answer(layer, channel: str, message: PeerMessage) -> PeerMessage | None:
    deadline = time.monotonic() + (message.waiting_until - message.created_at).total_seconds()
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            event = await asyncio.wait_for(layer.receive(channel), remaining)
        except TimeoutError:
            break
        if event.get("kind") != "message":
            continue
        if event.get("reply_to") == message.pk:
            answer = await sync_to_async(delivery.take_awaited_answer)(message)
            if answer is not None:
                return answer
        elif event.get("message") == message.pk and gives_up(event):
            break
    return await sync_to_async(delivery.end_wait)(message)


def gives_up(event: dict) -> bool:
    held = event.get("detail") == PeerMessage.Detail.HELD
    return event.get("state") in HOPELESS or held
