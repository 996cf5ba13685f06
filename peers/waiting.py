"""The one way a call waits: for the answer to a message (MessageChat with
waitSeconds) or for a chat's inbox (the long-poll).

A wait listens on the channel layer for hints about that one message or chat,
holding no database connection and no thread meanwhile, and re-reads the
database after every hint and every RECHECK_SECONDS. So a lost hint, or a
channel layer that is down, costs at most that much delay, never the answer;
and the sender and the answer may be handled by different processes."""

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from chats.models import Chat
from kernel import events
from peers import actions
from peers.actions.record import HOPELESS
from peers.models import PERSON_HOLDS, Notice, PeerMessage
from peers.selectors import inbox, untold_notices

logger = logging.getLogger(__name__)
RECHECK_SECONDS = 2.0
GAVE_UP = object()


class Hints:
    """Hints on one channel-layer group; when the layer fails, plain timeouts."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.layer = get_channel_layer()
        self.channel: str | None = None

    async def __aenter__(self) -> "Hints":
        if self.layer is not None:
            try:
                self.channel = await self.layer.new_channel()
                await self.layer.group_add(self.group, self.channel)
            except Exception as error:
                logger.warning("Waiting without hints (the channel layer failed: %s).", error)
                self.channel = None
        return self

    async def __aexit__(self, *exc) -> None:
        if self.channel is not None:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(self.group, self.channel)

    async def next(self, timeout: float) -> None:
        """Until a hint comes or `timeout` passes."""
        if self.channel is None:
            await asyncio.sleep(timeout)
            return
        try:
            await asyncio.wait_for(self.layer.receive(self.channel), timeout)
        except TimeoutError:
            pass
        except Exception as error:
            logger.warning("Waiting without hints (the channel layer failed: %s).", error)
            self.channel = None
            await asyncio.sleep(timeout)


def release_connection() -> None:
    """Give this thread's database connection back (to the pool) before a wait.

    Not inside an atomic block: that is a test's transaction, which must stay open."""
    if not connection.in_atomic_block:
        connection.close()


def released[T](check: Callable[[], T]) -> Callable[[], T]:
    """`check`, then this thread's connection given back before the next wait."""

    def run() -> T:
        try:
            return check()
        finally:
            release_connection()

    return run


async def until[T](check: Callable[[], T | None], *, group: str, seconds: float) -> T | None:
    """`check` (sync; None means "not yet") now, after each hint on `group` and every
    RECHECK_SECONDS, until it returns something or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    async with Hints(group) as hints:
        while True:
            result = await sync_to_async(released(check))()
            remaining = deadline - time.monotonic()
            if result is not None or remaining <= 0:
                return result
            await hints.next(min(remaining, RECHECK_SECONDS))


# What waits ------------------------------------------------------------------


LONGEST_POLL = 60  # seconds an inbox long-poll waits at most


async def send_and_wait(
    sender: Chat,
    *,
    to: str,
    text: str,
    reply_to: str | None = None,
    wait_seconds: float = 0,
    notify_when_idle: bool = False,
) -> tuple[PeerMessage, PeerMessage | None]:
    """MessageChat, for REST, MCP and the runner alike: the send in a DB thread, then
    the wait for its answer if the send asked for one (check_send clamps it), holding
    no thread and no connection meanwhile; raises Refusal."""
    message = await sync_to_async(send_now)(
        sender,
        to=to,
        text=text,
        reply_to=reply_to,
        wait_seconds=wait_seconds,
        notify_when_idle=notify_when_idle,
    )
    return await wait_for_answer(message)


def send_now(sender: Chat, **send) -> PeerMessage:
    """The send itself; its connection is given back only when a wait follows."""
    message = actions.check_send_message(sender, **send)
    if message.waiting_until is not None:
        release_connection()
    return message


async def wait_for_answer(message: PeerMessage) -> tuple[PeerMessage, PeerMessage | None]:
    """The message (as it is now) and its answer, if one came within its wait."""
    if message.waiting_until is None:
        return message, None
    seconds = (message.waiting_until - message.created_at).total_seconds()
    found = await until(
        lambda: answer_or_give_up(message), group=events.message_group(message.pk), seconds=seconds
    )
    answer = found if isinstance(found, PeerMessage) else None
    return await sync_to_async(released(lambda: end_wait(message, answer)))()


def answer_or_give_up(message: PeerMessage):
    answer = actions.take_awaited_answer(message)
    if answer is not None:
        return answer
    message.refresh_from_db(fields=["state", "reason", "answer_refused"])
    held = message.reason in PERSON_HOLDS
    # An answer refused (recorded on the message, a hint sent) ends the wait at once.
    over = message.state in HOPELESS or held or bool(message.answer_refused)
    return GAVE_UP if over else None


def end_wait(message: PeerMessage, answer: PeerMessage | None):
    if answer is None:
        answer = actions.end_wait(message)
    message.refresh_from_db()
    return message, answer


def check_inbox_poll(chat: Chat, wait: float) -> float:
    """A chat's inbox long-poll: refused when its switch is off; the wait, clamped."""
    actions.check_peers_on(chat)
    return min(max(wait, 0.0), LONGEST_POLL)


async def poll_inbox(chat: Chat, *, wait: float) -> tuple[list[PeerMessage], list[Notice]]:
    """The agent's inbox (REST and MCP): checked, then its messages and its untold
    notices, as soon as either is there or `wait` seconds have passed."""
    wait = await sync_to_async(check_inbox_poll)(chat, wait)
    found = await until(lambda: inbox_now(chat), group=events.inbox_group(chat.pk), seconds=wait)
    return found or ([], [])


def inbox_now(chat: Chat) -> tuple[list[PeerMessage], list[Notice]] | None:
    messages, notices = inbox(chat), list(untold_notices(chat))
    return (messages, notices) if messages or notices else None


async def wait_for_inbox(chat: Chat, *, wait: float) -> list[PeerMessage]:
    """The chat's inbox, as soon as it has something or `wait` seconds have passed."""
    found = await until(
        lambda: inbox(chat) or None, group=events.inbox_group(chat.pk), seconds=wait
    )
    return found or []
