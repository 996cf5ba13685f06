"""Over real HTTP (Django's live server on the test database, whichever backend it is):
a signed request starts a chat whose demo turn's final text reaches a receiver of our own
on loopback, signed; bad, stale and replayed requests start nothing."""

import json
import time
import uuid

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from agents.runner import TurnRunner
from chats.models import Chat
from origins import signing
from origins.actions import send_due_replies
from origins.models import OriginReply
from tests.origins.conftest import make_origin, signed

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fast_steps(settings):
    settings.DEMO_STEP_SECONDS = 0


def post(live_server, origin, body: bytes, headers: dict) -> httpx.Response:
    url = f"{live_server.url}/hooks/in/{origin.public_id}"
    return httpx.post(url, content=body, headers=headers, timeout=10)


def outside_chats() -> int:
    return Chat.objects.exclude(origin="user").count()


async def test_it_a_signed_request_runs_a_turn_whose_answer_reaches_the_callback_signed(
    live_server, owner, receiver, fast_steps
):
    origin = await sync_to_async(make_origin)(owner, settings={"callback_url": receiver.url})
    body, headers = signed(
        origin, {"text": "summarise #12\nwork 50", "thread": "T", "author": "ci"}
    )
    response = await sync_to_async(post)(live_server, origin, body, headers)
    assert response.status_code == 202, response.text
    chat_id = response.json()["chat"]

    await TurnRunner("tests").run_until_idle()
    assert await sync_to_async(send_due_replies)() == 1

    [answer] = receiver.requests
    signing.check_signature(
        origin.secret,
        given=answer.headers[signing.SIGNATURE],
        timestamp=answer.headers[signing.TIMESTAMP],
        body=answer.body,
    )
    assert json.loads(answer.body)["text"] == 'Read a request from webhook by ci: "summarise #12"'
    assert json.loads(answer.body)["chat"] == chat_id
    reply = await OriginReply.objects.aget(thread__chat_id=chat_id)
    assert reply.state == "sent"


def test_it_bad_stale_and_replayed_requests_are_refused_and_start_nothing(live_server, origin):
    bad = post(live_server, origin, *signed(origin, {"text": "x"}, secret="wrong"))
    stale_ts = str(int(time.time()) - 600)
    stale = post(live_server, origin, *signed(origin, {"text": "x"}, timestamp=stale_ts))
    assert (bad.status_code, stale.status_code) == (401, 401)
    assert bad.json()["code"] == stale.json()["code"] == "bad_signature"
    assert outside_chats() == 0

    body, headers = signed(origin, {"text": "x"}, delivery=uuid.uuid4().hex)
    assert post(live_server, origin, body, headers).status_code == 202
    replay = post(live_server, origin, body, headers)
    assert replay.status_code == 409 and replay.json()["code"] == "duplicate_delivery"
    assert outside_chats() == 1


def test_it_a_disabled_origin_answers_404_like_a_missing_one(live_server, origin):
    origin.enabled = False
    origin.save()
    body, headers = signed(origin, {"text": "x"})
    disabled = post(live_server, origin, body, headers)
    missing = httpx.post(f"{live_server.url}/hooks/in/org_missing", content=body, headers=headers)
    assert disabled.status_code == missing.status_code == 404
    assert disabled.content == missing.content
    assert outside_chats() == 0


def test_it_the_origins_limit_holds_over_http(live_server, owner):
    origin = make_origin(owner, requests_per_hour=1)
    assert post(live_server, origin, *signed(origin, {"text": "a"})).status_code == 202
    over = post(live_server, origin, *signed(origin, {"text": "b"}))
    assert over.status_code == 429 and over.json()["code"] == "limit_origin_hour"
    assert outside_chats() == 1


def test_it_the_test_button_sends_a_signed_request_to_the_servers_public_url(
    live_server, owner, origin, settings
):
    settings.CROSSTALK_PUBLIC_URL = live_server.url
    client = Client()
    client.force_login(owner)
    page = client.post(f"/settings/origins/{origin.public_id}/test/", follow=True)
    text = page.content.decode()
    assert f"{live_server.url}/hooks/in/{origin.public_id} answered 200" in text
    assert "The signature checks out." in text
    assert outside_chats() == 0


@pytest.mark.parametrize("public_url", ["", "set"])
def test_it_the_test_button_never_goes_where_the_host_header_says(
    live_server, owner, origin, settings, loopback_listener, public_url
):
    # Unset, CROSSTALK_URL is the fallback: the server's own address, as its admin set it.
    settings.CROSSTALK_PUBLIC_URL = live_server.url if public_url else ""
    settings.CROSSTALK_URL = live_server.url
    client = Client()
    client.force_login(owner)
    crafted = f"127.0.0.1:{loopback_listener.port}"
    page = client.post(
        f"/settings/origins/{origin.public_id}/test/", HTTP_HOST=crafted, follow=True
    )
    assert f"{live_server.url}/hooks/in/{origin.public_id} answered 200" in page.content.decode()
    assert crafted not in page.content.decode()
    assert loopback_listener.connections == 0
