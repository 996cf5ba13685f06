"""Page sockets: thin forwarders of the account's hints (chats.events.publish).

A hint is {kind, chat, ...}; the page refetches what changed, so nothing here
reads or sends data beyond the hint itself."""

import asyncio
import contextlib
import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from chats.events import PUSH_TIMEOUT_SECONDS, account_group
from chats.refusals import Refusal
from chats.selectors import access_chat

logger = logging.getLogger(__name__)


class AccountHintsConsumer(AsyncJsonWebsocketConsumer):
    """Joins the signed-in person's account group and forwards each hint."""

    account_group_name: str | None = None

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
        group = account_group(user.pk)
        try:
            async with asyncio.timeout(PUSH_TIMEOUT_SECONDS):
                await self.channel_layer.group_add(group, self.channel_name)
        except Exception as error:
            # Redis is away: refuse the handshake; the page polls and reconnects.
            logger.warning("Refused a page socket: could not join its group (%s).", error)
            await self.close()
            return
        self.account_group_name = group
        await self.accept()

    async def may_listen(self, user) -> bool:
        return True

    async def disconnect(self, code: int) -> None:
        if self.account_group_name:
            with contextlib.suppress(Exception):  # with Redis away, the membership expires
                await self.channel_layer.group_discard(self.account_group_name, self.channel_name)

    async def account_event(self, event: dict) -> None:
        await self.send_json({key: value for key, value in event.items() if key != "type"})


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
