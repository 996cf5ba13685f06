"""Page sockets: thin forwarders of the account's hints (kernel.events.publish).

A hint is {kind, chat, ...}; the page refetches what changed, so nothing here
reads or sends data beyond the hint itself."""

import asyncio
import contextlib
import logging
import weakref
from collections import defaultdict

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from accounts.sessions import session_group, session_user_id
from chats.selectors import access_chat
from kernel.events import PUSH_TIMEOUT_SECONDS, account_group
from kernel.refusals import Refusal

logger = logging.getLogger(__name__)


# A socket closed because its session ended (logged out, expired, password changed).
SESSION_ENDED = 4001


class AccountHintsConsumer(AsyncJsonWebsocketConsumer):
    """Joins the signed-in person's account group and forwards each hint, while its
    session lasts: joined to its session's group too (accounts.sessions), it closes on
    logout, and re-checks the session on any change to the account; its session's
    watch (SessionWatches) re-checks it every SESSION_RECHECK_SECONDS (expiry)."""

    groups_joined: tuple[str, ...] = ()
    ended = False

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception as error:
            # The channel layer (Redis) failed under us: end this socket, logged; the
            # page polls, reconnects and resyncs from the database.
            logger.warning("A page socket ended: %s", error, exc_info=True)
            with contextlib.suppress(Exception):
                # 4000, not 1011: Daphne (autobahn) sends only 1000 and 3000-4999.
                await send({"type": "websocket.close", "code": 4000})

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not await self.may_listen(user):
            # Refused before accepting: the handshake fails, nothing is sent.
            await self.close()
            return
        session_key = getattr(self.scope.get("session"), "session_key", None)
        if not session_key:
            await self.close()
            return
        groups = (account_group(user.pk), session_group(session_key))
        try:
            async with asyncio.timeout(PUSH_TIMEOUT_SECONDS):
                for group in groups:
                    await self.channel_layer.group_add(group, self.channel_name)
        except Exception as error:
            # Redis is away: refuse the handshake; the page polls and reconnects.
            logger.warning("Refused a page socket: could not join its group (%s).", error)
            await self.close()
            return
        self.groups_joined = groups
        self.session_key, self.user_id = session_key, user.pk
        await self.accept()
        session_watches().join(self)

    async def may_listen(self, user) -> bool:
        return True

    async def disconnect(self, code: int) -> None:
        self.ended = True
        if self.groups_joined:
            session_watches().leave(self)
        for group in self.groups_joined:
            with contextlib.suppress(Exception):  # with Redis away, the membership expires
                await self.channel_layer.group_discard(group, self.channel_name)

    async def account_event(self, event: dict) -> None:
        if not self.ended:
            await self.send_json({key: value for key, value in event.items() if key != "type"})

    async def session_end(self, event: dict) -> None:
        """The session logged out: nothing more is sent on this socket."""
        if not self.ended:
            self.ended = True
            await self.close(code=SESSION_ENDED)

    async def session_check(self, event: dict) -> None:
        user_id = await database_sync_to_async(session_user_id)(self.session_key)
        if user_id != self.user_id:
            await self.session_end(event)


class SessionWatches:
    """One expiry watch per session in this process, however many of its pages are open:
    a watch per socket was a query per socket every SESSION_RECHECK_SECONDS (1,000 pages:
    17 a second, on the thread every request waits for; docs/benchmarks.md)."""

    def __init__(self) -> None:
        self.sockets: dict[str, set[AccountHintsConsumer]] = defaultdict(set)
        self.tasks: dict[str, asyncio.Task] = {}

    def join(self, consumer: AccountHintsConsumer) -> None:
        key = consumer.session_key
        self.sockets[key].add(consumer)
        if key not in self.tasks:
            self.tasks[key] = asyncio.create_task(self.watch(key))

    def leave(self, consumer: AccountHintsConsumer) -> None:
        key = consumer.session_key
        sockets = self.sockets.get(key)
        if sockets is None:
            return
        sockets.discard(consumer)
        if not sockets:
            del self.sockets[key]
            self.tasks.pop(key).cancel()

    async def watch(self, key: str) -> None:
        """The session may expire with no change to the account: look every so often."""
        while self.sockets.get(key):
            await asyncio.sleep(settings.SESSION_RECHECK_SECONDS)
            try:
                user_id = await database_sync_to_async(session_user_id)(key)
            except Exception as error:  # a database hiccup: look again later
                logger.warning("Could not re-check a page's session: %s", error)
                continue
            for consumer in list(self.sockets.get(key, ())):
                if user_id != consumer.user_id:
                    await consumer.session_end({})


# Per event loop: each test runs its own, and a task belongs to the loop that made it.
watches_by_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def session_watches() -> SessionWatches:
    return watches_by_loop.setdefault(asyncio.get_running_loop(), SessionWatches())


class ChatListConsumer(AccountHintsConsumer):
    """/ws/chats/: the chat list page."""


class ChatConsumer(AccountHintsConsumer):
    """/ws/chats/<chat_id>/: one chat's page; only its owner may open it."""

    async def may_listen(self, user) -> bool:
        chat_id = self.scope["url_route"]["kwargs"]["chat_id"]
        return await database_sync_to_async(owns_chat)(user, chat_id)


def owns_chat(user, chat_id: str) -> bool:
    try:
        access_chat(user, chat_id)
    except Refusal:
        return False
    return True
