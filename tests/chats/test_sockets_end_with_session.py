"""A page socket ends with its session: logging out, a new password, or the session
expiring closes it, and nothing more arrives on it."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from accounts.actions import do_set_password
from chats.actions import do_prompt
from chats.consumers import SESSION_ENDED, session_watches
from crosstalk.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED = {"type": "websocket.close", "code": SESSION_ENDED}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def open_socket(client: Client, path: str) -> WebsocketCommunicator:
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"origin", b"http://127.0.0.1:8000"),
        (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()),
    ]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_it_logging_out_closes_the_sessions_socket_at_once(owner, chat):
    client = await database_sync_to_async(logged_in)(owner)
    other_session = await database_sync_to_async(logged_in)(owner)
    socket = await open_socket(client, f"/ws/chats/{chat.pk}/")
    other = await open_socket(other_session, "/ws/chats/")
    try:
        await database_sync_to_async(do_prompt)(chat, text="before")
        # A prompt pushes its entry, then the chat (running at once).
        for each in (socket, other):
            assert await each.receive_json_from() == {"kind": "entry", "chat": chat.pk}
            assert await each.receive_json_from() == {"kind": "chat", "chat": chat.pk}
        response = await database_sync_to_async(client.post)("/accounts/logout/")
        assert response.status_code == 302
        assert await socket.receive_output(timeout=2) == CLOSED
        await database_sync_to_async(do_prompt)(chat, text="after")
        assert await socket.receive_nothing(timeout=0.5)
        # The person's other session is not logged out: its socket goes on.
        assert await other.receive_json_from() == {"kind": "entry", "chat": chat.pk}
    finally:
        await socket.disconnect()
        await other.disconnect()


async def test_it_a_new_password_closes_the_sessions_sockets(owner, chat):
    client = await database_sync_to_async(logged_in)(owner)
    socket = await open_socket(client, "/ws/chats/")
    try:
        await database_sync_to_async(do_set_password)(owner, password="a-new-passphrase-7")
        assert await socket.receive_output(timeout=2) == CLOSED
        await database_sync_to_async(do_prompt)(chat, text="after")
        assert await socket.receive_nothing(timeout=0.5)
    finally:
        await socket.disconnect()


async def test_it_an_expired_session_closes_its_socket(owner, chat, settings):
    settings.SESSION_RECHECK_SECONDS = 0.05
    client = await database_sync_to_async(logged_in)(owner)
    socket = await open_socket(client, "/ws/chats/")
    try:
        assert await socket.receive_nothing(timeout=0.3)  # still valid: stays open
        key = client.cookies["sessionid"].value
        past = timezone.now() - timedelta(seconds=1)
        await database_sync_to_async(Session.objects.filter(pk=key).update)(expire_date=past)
        assert await socket.receive_output(timeout=2) == CLOSED
    finally:
        await socket.disconnect()


async def test_it_the_pages_of_one_session_share_one_watch_and_close_together(
    owner, chat, settings
):
    settings.SESSION_RECHECK_SECONDS = 0.05
    client = await database_sync_to_async(logged_in)(owner)
    key = client.cookies["sessionid"].value
    pages = [
        await open_socket(client, "/ws/chats/"),
        await open_socket(client, f"/ws/chats/{chat.pk}/"),
    ]
    try:
        assert list(session_watches().tasks) == [key]  # one re-check for both pages
        past = timezone.now() - timedelta(seconds=1)
        await database_sync_to_async(Session.objects.filter(pk=key).update)(expire_date=past)
        for page in pages:
            assert await page.receive_output(timeout=2) == CLOSED
    finally:
        for page in pages:
            await page.disconnect()
    assert key not in session_watches().tasks
