"""REST for agents (/api/v1/agent/, a chat's agent key): ListChats, ReadChat,
MessageChat with and without a wait, and the poll inbox."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.test import AsyncClient

from chats.models import Entry
from kernel import events
from peers import actions
from peers import actions as peer_actions
from peers.models import Activity, PeerMessage
from tests.chats.test_chats_api import CHAT_FIELDS
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running

MESSAGE_FIELDS = {
    "id",
    "from_chat",
    "to_chat",
    "sent_by",
    "text",
    "reply_to",
    "exchange",
    "chain",
    "hop",
    "state",
    "detail",
    "path",
    "reason",
    "answered",
    "answer",
    "answer_refused",
    "words",
    "created_at",
    "delivered_at",
}


def send(api: ApiClient, to: str, text: str = "which port?", **fields):
    return api.call("POST", "/api/v1/agent/messages", {"to": to, "text": text, **fields})


async def agent_call(chat, method: str, path: str, data: dict | None = None):
    """Through Django's ASGI handler, as Daphne would call the async views."""
    headers = {"Authorization": f"Bearer {chat.agent_key}"}
    if method == "GET":
        return await AsyncClient().get(path, headers=headers)
    return await AsyncClient().post(path, data, content_type="application/json", headers=headers)


# ListChats, ReadChat ---------------------------------------------------------------


def test_it_lists_reachable_chats_with_how_fast_they_hear(api, sender, recipient, owner):
    make_chat(owner, "never-ran", peers=True)
    off = make_chat(owner, "quiet", peers=False)
    reachable(off)
    running(recipient)

    body = api.call("GET", "/api/v1/agent/chats").json()

    assert body["count"] == 1 and [item["id"] for item in body["items"]] == [recipient.pk]
    item = body["items"][0]
    assert set(item) == CHAT_FIELDS | {"how_fast"}
    assert item["how_fast"] == {
        "path": "between_steps",
        "words": "after its current step",
        "median_seconds": None,
    }
    assert Activity.objects.filter(chat=sender, action="list").count() == 1


def test_it_reads_the_latest_entries_of_another_chat(api, other_api, sender, recipient):
    Entry.objects.bulk_create(
        Entry(chat=recipient, kind=Entry.Kind.PROMPT, text=f"step {n}") for n in range(5)
    )
    message = send(other_api, sender.pk, "renamed cart_id", wait_seconds=0).json()

    body = api.call("GET", f"/api/v1/agent/chats/{recipient.pk}?limit=3").json()

    assert body["count"] == 3
    assert [item["kind"] for item in body["items"]] == ["prompt", "prompt", "peer_out"]
    assert body["items"][-1]["text"] == "renamed cart_id"
    assert body["items"][-1]["message"] == message["id"]
    assert set(body["items"][0]) == {"kind", "text", "created_at", "message"}
    assert Activity.objects.filter(chat=sender, target=recipient, action="read").count() == 1


def test_it_refuses_a_limit_that_is_not_a_number(api, recipient):
    response = api.call("GET", f"/api/v1/agent/chats/{recipient.pk}?limit=lots")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


def test_it_another_accounts_agent_sees_none_of_the_owners_chats(
    outsider_chat, sender, recipient, owner
):
    reachable(outsider_chat)
    theirs = ApiClient(outsider_chat.agent_key)
    assert theirs.call("GET", "/api/v1/agent/chats").json() == {"items": [], "count": 0}
    missing = theirs.call("GET", "/api/v1/agent/chats/chat_0000000000000000")
    owners = theirs.call("GET", f"/api/v1/agent/chats/{sender.pk}")
    assert (owners.status_code, owners.json()) == (missing.status_code, missing.json())
    assert owners.status_code == 404 and owners.json()["code"] == "no_chat"
    sent = send(theirs, recipient.pk, wait_seconds=0)
    assert (sent.status_code, sent.json()["code"]) == (404, "no_chat")
    assert not PeerMessage.objects.exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/agent/chats"),
        ("GET", "/api/v1/agent/chats/{other}"),
        ("POST", "/api/v1/agent/messages"),
        ("GET", "/api/v1/agent/inbox"),
        ("POST", "/api/v1/agent/inbox/seen"),
    ],
)
def test_it_a_chat_whose_switch_is_off_gets_peers_off_everywhere(owner, recipient, method, path):
    off = make_chat(owner, "quiet", peers=False)
    reachable(off)
    body = {"ids": []} if path.endswith("seen") else {"to": recipient.pk, "text": "hi"}
    body = None if method == "GET" else {**body, "wait_seconds": 0} if "to" in body else body
    response = ApiClient(off.agent_key).call(method, path.format(other=recipient.pk), body)
    assert (response.status_code, response.json()["code"]) == (403, "peers_off")
    assert Activity.objects.get(chat=off).detail == "peers_off"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/agent/chats"),
        ("POST", "/api/v1/agent/messages"),
        ("GET", "/api/v1/agent/inbox"),
        ("POST", "/api/v1/agent/inbox/seen"),
    ],
)
def test_it_a_persons_token_is_not_an_agent_key(owner_api, method, path):
    response = owner_api.call(method, path, {"to": "x", "text": "y"} if method == "POST" else None)
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_it_an_agent_key_is_not_a_persons_token(api, recipient):
    response = api.call("GET", f"/api/v1/messages?chat={recipient.pk}")
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_it_the_async_routes_answer_json_for_a_wrong_method(api):
    response = api.call("GET", "/api/v1/agent/messages/")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "POST"
    response = api.call("DELETE", "/api/v1/agent/inbox")
    assert response.status_code == 405 and response["Allow"] == "GET"


# MessageChat ------------------------------------------------------------------------


def test_it_sends_and_answers_the_message(api, sender, recipient):
    response = send(api, recipient.pk, "Which port does the API use?", wait_seconds=0)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == MESSAGE_FIELDS | {"answer_message", "note", "notify_when_idle"}
    assert body["answer_message"] is None and body["note"] is None
    assert (body["from_chat"], body["to_chat"], body["sent_by"]) == (
        sender.pk,
        recipient.pk,
        "agent",
    )
    assert (body["state"], body["detail"], body["words"]) == (
        "queued",
        "waking",
        "Queued — waking it",
    )
    assert PeerMessage.objects.get(pk=body["id"]).text == "Which port does the API use?"


def test_it_tells_the_agent_not_to_wait_for_a_stopped_chat(api, recipient):
    peer_actions.check_stop_chat(recipient)
    started = time.monotonic()
    body = send(api, recipient.pk, "there?", wait_seconds=30).json()
    assert time.monotonic() - started < 5
    assert (body["state"], body["detail"]) == ("queued", "held_until_you_write")
    assert "stopped" in body["note"] and "not wait" in body["note"]
    assert body["answer_message"] is None


def test_it_takes_camel_case_fields_too(api, other_api, sender, recipient):
    question = send(api, recipient.pk, wait_seconds=0).json()
    body = other_api.call(
        "POST",
        "/api/v1/agent/messages",
        {"to": sender.pk, "text": "8080", "replyTo": question["id"], "waitSeconds": 0},
    ).json()
    assert body["reply_to"] == question["id"]


def test_it_a_wait_with_nobody_answering_returns_when_the_time_is_up(sender, recipient):
    started = time.monotonic()
    response = async_to_sync(agent_call)(
        sender,
        "POST",
        "/api/v1/agent/messages",
        {"to": recipient.pk, "text": "anyone?", "wait_seconds": 1},
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 201
    body = response.json()
    assert 0.9 <= elapsed < 5
    assert body["answer_message"] is None and body["answer"] is None
    assert (body["state"], body["detail"]) == ("queued", "waking")
    assert PeerMessage.objects.get(pk=body["id"]).waiting_until is None


def test_it_a_wait_is_clamped_to_the_longest(sender, recipient):
    actions.do_set_limits({"max_wait_seconds": 1})
    started = time.monotonic()
    response = async_to_sync(agent_call)(
        sender,
        "POST",
        "/api/v1/agent/messages",
        {"to": recipient.pk, "text": "anyone?", "wait_seconds": 600},
    )
    assert response.status_code == 201
    assert time.monotonic() - started < 5


@pytest.mark.django_db(transaction=True)
async def test_it_a_waiting_call_returns_the_answer_when_it_comes(sender, recipient):
    listener, channel = await listen(sender.user_id)
    call = asyncio.create_task(
        agent_call(
            sender,
            "POST",
            "/api/v1/agent/messages",
            {"to": recipient.pk, "text": "Which port?", "wait_seconds": 10},
        )
    )
    question_id = await next_message_event(listener, channel, to=recipient.pk)
    answer = await agent_call(
        recipient,
        "POST",
        "/api/v1/agent/messages",
        {"to": sender.pk, "text": "8080", "reply_to": question_id, "wait_seconds": 0},
    )
    response = await asyncio.wait_for(call, 10)
    await listener.group_discard(events.account_group(sender.user_id), channel)

    body = response.json()
    assert response.status_code == 201 and body["id"] == question_id
    assert body["answer"] == answer.json()["id"] and body["answered"] is True
    assert body["answer_message"]["text"] == "8080"
    assert (body["answer_message"]["state"], body["answer_message"]["detail"]) == (
        "delivered",
        "waiting_call",
    )


async def listen(user_id: int):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(events.account_group(user_id), channel)
    return layer, channel


async def next_message_event(layer, channel: str, *, to: str) -> str:
    while True:
        event = await asyncio.wait_for(layer.receive(channel), 10)
        if event.get("kind") == "message" and event.get("to") == to:
            return event["message"]


# The poll inbox -----------------------------------------------------------------------


def test_it_the_inbox_answers_at_once_and_reading_never_marks_seen(api, other_api, recipient):
    first = send(api, recipient.pk, "one", wait_seconds=0).json()
    second = send(api, recipient.pk, "two", wait_seconds=0).json()

    for _ in range(2):
        body = other_api.call("GET", "/api/v1/agent/inbox?wait=0").json()
        assert [item["id"] for item in body["items"]] == [first["id"], second["id"]]
        assert body["count"] == 2

    assert set(PeerMessage.objects.values_list("state", flat=True)) == {"queued"}
    assert not Activity.objects.filter(action="delivery").exists()


def test_it_marking_seen_delivers_with_path_inbox(api, other_api, recipient):
    first = send(api, recipient.pk, "one", wait_seconds=0).json()
    second = send(api, recipient.pk, "two", wait_seconds=0).json()

    body = other_api.call("POST", "/api/v1/agent/inbox/seen", {"ids": [first["id"]]}).json()

    assert body["count"] == 1
    assert (body["items"][0]["state"], body["items"][0]["detail"]) == ("delivered", "inbox")
    assert PeerMessage.objects.get(pk=first["id"]).delivered_at is not None
    assert Activity.objects.get(action="delivery").detail == "inbox"
    left = other_api.call("GET", "/api/v1/agent/inbox").json()
    assert [item["id"] for item in left["items"]] == [second["id"]]


def test_it_marking_seen_takes_only_this_chats_messages(api, sender, recipient, owner):
    message = send(api, recipient.pk, wait_seconds=0).json()
    bystander = make_chat(owner, "bystander", peers=True)
    body = ApiClient(bystander.agent_key).call(
        "POST", "/api/v1/agent/inbox/seen", {"ids": [message["id"]]}
    )
    assert body.json() == {"items": [], "count": 0}
    assert PeerMessage.objects.get(pk=message["id"]).state == "queued"


def test_it_the_inbox_never_offers_held_messages(api, other_api, recipient):
    peer_actions.check_stop_chat(recipient)
    send(api, recipient.pk, wait_seconds=0)
    assert other_api.call("GET", "/api/v1/agent/inbox").json() == {"items": [], "count": 0}


def test_it_an_empty_inbox_waits_then_answers_empty(recipient):
    started = time.monotonic()
    response = async_to_sync(agent_call)(recipient, "GET", "/api/v1/agent/inbox?wait=0.3")
    assert response.json() == {"items": [], "count": 0}
    assert 0.25 <= time.monotonic() - started < 5


def test_it_the_inbox_refuses_a_wait_that_is_not_a_number(other_api):
    response = other_api.call("GET", "/api/v1/agent/inbox?wait=soon")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


@pytest.mark.django_db(transaction=True)
async def test_it_a_long_poll_answers_when_a_message_arrives(sender, recipient):
    listener, channel = await listen(recipient.user_id)
    poll = asyncio.create_task(agent_call(recipient, "GET", "/api/v1/agent/inbox?wait=20"))
    # Nothing there: the poll holds on (what must not happen, checked like receive_nothing()).
    done, _ = await asyncio.wait({poll}, timeout=0.3)
    assert not done
    message = await sync_to_async(actions.check_send_message)(sender, to=recipient.pk, text="hi")
    await next_message_event(listener, channel, to=recipient.pk)
    response = await asyncio.wait_for(poll, 10)
    await listener.group_discard(events.account_group(recipient.user_id), channel)

    assert [item["id"] for item in response.json()["items"]] == [message.pk]
