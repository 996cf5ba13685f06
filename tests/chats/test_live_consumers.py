"""Page sockets forward the account's hints after commit, and only to its owner."""

import contextlib

import pytest
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.test import Client

from chats.actions import do_prompt
from chats.routing import websocket_urlpatterns
from peers import actions as peer_actions

pytestmark = pytest.mark.django_db(transaction=True)


class RolledBack(Exception):
    pass


def application():
    # Wrapped exactly as crosstalk.asgi wraps it (the origin check aside).
    return AuthMiddlewareStack(URLRouter(websocket_urlpatterns))


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def open_socket(user, path: str) -> tuple[WebsocketCommunicator, bool]:
    cookie = await database_sync_to_async(session_cookie)(user)
    communicator = WebsocketCommunicator(application(), path, headers=[(b"cookie", cookie)])
    connected, _ = await communicator.connect()
    return communicator, connected


def switch_then_roll_back(chat) -> None:
    with contextlib.suppress(RolledBack), transaction.atomic():
        peer_actions.do_set_peers(chat, enabled=False)
        raise RolledBack


async def test_it_pushes_a_hint_to_the_owners_chat_page_after_commit(owner, chat):
    communicator, connected = await open_socket(owner, f"/ws/chats/{chat.pk}/")
    try:
        assert connected
        await database_sync_to_async(do_prompt)(chat, text="hello")
        assert await communicator.receive_json_from() == {"kind": "entry", "chat": chat.pk}
    finally:
        await communicator.disconnect()


async def test_it_pushes_a_hint_to_the_owners_chat_list(owner, chat, other_chat):
    communicator, connected = await open_socket(owner, "/ws/chats/")
    try:
        assert connected
        await database_sync_to_async(peer_actions.do_set_peers)(other_chat, enabled=False)
        assert await communicator.receive_json_from() == {"kind": "chat", "chat": other_chat.pk}
    finally:
        await communicator.disconnect()


async def test_it_pushes_nothing_when_the_transaction_rolls_back(owner, chat, other_chat):
    communicator, connected = await open_socket(owner, "/ws/chats/")
    try:
        assert connected
        await database_sync_to_async(switch_then_roll_back)(chat)
        assert await communicator.receive_nothing()
        # The socket still works: the next committed change is the first hint to arrive.
        await database_sync_to_async(peer_actions.do_set_peers)(other_chat, enabled=False)
        assert await communicator.receive_json_from() == {"kind": "chat", "chat": other_chat.pk}
    finally:
        await communicator.disconnect()


@pytest.mark.parametrize("which", ["owners", "missing"])
async def test_it_refuses_a_chat_socket_that_is_not_yours(outsider, chat, which):
    chat_id = chat.pk if which == "owners" else "chat_0000000000000000"
    communicator, connected = await open_socket(outsider, f"/ws/chats/{chat_id}/")
    try:
        assert not connected
    finally:
        await communicator.disconnect()


async def test_it_refuses_anonymous_sockets(chat):
    for path in ["/ws/chats/", f"/ws/chats/{chat.pk}/"]:
        communicator = WebsocketCommunicator(application(), path)
        connected, _ = await communicator.connect()
        try:
            assert not connected
        finally:
            await communicator.disconnect()


async def test_it_refuses_a_scope_user_that_is_anonymous(chat):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chats/{chat.pk}/")
    communicator.scope["user"] = AnonymousUser()
    connected, _ = await communicator.connect()
    try:
        assert not connected
    finally:
        await communicator.disconnect()


async def test_it_sends_an_outsider_nothing_of_the_owners_changes(
    owner, outsider, chat, outsider_chat
):
    communicator, connected = await open_socket(outsider, "/ws/chats/")
    try:
        assert connected
        await database_sync_to_async(do_prompt)(chat, text="private")
        await database_sync_to_async(peer_actions.do_set_peers)(chat, enabled=False)
        assert await communicator.receive_nothing()
        # Their own changes do arrive, so the silence above is not a dead socket.
        await database_sync_to_async(peer_actions.do_set_peers)(outsider_chat, enabled=False)
        assert await communicator.receive_json_from() == {
            "kind": "chat",
            "chat": outsider_chat.pk,
        }
    finally:
        await communicator.disconnect()
