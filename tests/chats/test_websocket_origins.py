"""A page socket opens only from the page's own origin (scheme, host and port) or one of
CSRF_TRUSTED_ORIGINS, even with the person's cookie."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from crosstalk.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

HOST = b"127.0.0.1:8000"


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def connects(user, origin: bytes | None, host: bytes = HOST, **extra) -> bool:
    headers = [(b"host", host), (b"cookie", await database_sync_to_async(session_cookie)(user))]
    if origin is not None:
        headers.append((b"origin", origin))
    headers += [(name.encode(), value.encode()) for name, value in extra.items()]
    communicator = WebsocketCommunicator(application, "/ws/chats/", headers=headers)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


@pytest.mark.parametrize(
    "origin",
    [
        b"http://127.0.0.1:9999",
        b"http://localhost:3000",
        b"https://127.0.0.1",
        b"https://127.0.0.1:8000",
        b"http://[::1]:1234",
        b"http://127.0.0.1",
        b"null",
        b"http://127.0.0.1:8000.evil.example",
    ],
)
async def test_it_refuses_any_other_origin(owner, origin):
    assert await connects(owner, origin) is False


async def test_it_accepts_the_pages_own_origin(owner):
    assert await connects(owner, b"http://127.0.0.1:8000") is True
    assert await connects(owner, b"http://[::1]:1234", host=b"[::1]:1234") is True
    assert await connects(owner, b"http://localhost", host=b"localhost:80") is True


async def test_it_refuses_a_socket_without_origin_or_from_a_host_not_allowed(owner):
    assert await connects(owner, None) is False
    assert await connects(owner, b"http://evil.example:8000", host=b"evil.example:8000") is False


async def test_it_accepts_a_trusted_origin_behind_a_tls_proxy(owner, settings):
    settings.ALLOWED_HOSTS = ["crosstalk.example.com"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://crosstalk.example.com"]
    assert await connects(owner, b"https://crosstalk.example.com", host=b"crosstalk.example.com")
    host = b"crosstalk.example.com"
    assert not await connects(owner, b"https://crosstalk.example.com:8443", host=host)


async def test_it_takes_the_scheme_from_the_proxy_header_when_told_to(owner, settings):
    settings.ALLOWED_HOSTS = ["crosstalk.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied = {"x-forwarded-proto": "https"}
    host = b"crosstalk.example.com"
    assert await connects(owner, b"https://crosstalk.example.com", host=host, **proxied)
    assert not await connects(owner, b"https://crosstalk.example.com", host=host)
