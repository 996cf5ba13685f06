"""A push is a hint: with the channel layer's Redis unreachable nothing that commits
raises, a claimed turn stays claimed, and page sockets are refused cleanly."""

import logging

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chats import actions
from chats.models import Turn
from crosstalk.asgi import application
from kernel import events
from tests.reliability.procs import free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_away(settings):
    """A real Redis client against a port nothing listens on."""
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "kernel.redis_layer.RedisHintsLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port()}/0"]},
        }
    }


def test_it_keeps_a_claim_whose_push_failed(chat, redis_away, caplog):
    with caplog.at_level(logging.WARNING, logger="kernel.events"):
        actions.check_prompt(chat, text="hello")
        turn = actions.claim_next_turn("tests")
    assert turn is not None
    assert Turn.objects.get(pk=turn.pk).state == Turn.State.RUNNING
    assert any("live push" in record.getMessage() for record in caplog.records)


def test_it_never_raises_from_a_push(redis_away):
    events.group_send(events.account_group(1), {"type": "account.event", "kind": "chat"})


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_it_refuses_a_page_socket_cleanly(owner, redis_away):
    cookie = await database_sync_to_async(session_cookie)(owner)
    communicator = WebsocketCommunicator(
        application,
        "/ws/chats/",
        headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.disconnect()
