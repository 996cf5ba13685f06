"""The MCP tools in process (the transport is tested in test_mcp_live.py): which tools
each credential sees, and that REST and MCP answer alike, refusals included."""

import asyncio

import pytest
from asgiref.sync import async_to_sync

from accounts.actions import do_create_api_token
from crosstalk.mcp.server import TOOLBOX
from peers.actions import check_send_message, do_set_peers
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.peers.test_waiting import answer_when_asked

AGENT_TOOLS = ["ListChats", "ReadChat", "MessageChat", "ReadInbox"]
PERSON_TOOLS = [
    "list_peer_chats",
    "connect_chats",
    "send_peer_message",
    "read_peers",
    "set_peer_reach",
    "cancel_peer_message",
    "approve_peer_message",
    "deny_peer_message",
    "search",
    "start_chat",
    "update_chat",
    "delete_chat",
    "read_inbox",
    "mark_done",
    "list_origins",
    "create_origin",
    "update_origin",
    "delete_origin",
    "rotate_origin_secret",
    "read_origin_log",
    "resend_origin_answer",
]
MISSING = "chat_0000000000000000"
# What differs between two sends of the same message: its identity and its moment.
PER_MESSAGE = {"id", "exchange", "chain", "created_at", "delivered_at"}


def tool_names(secret: str) -> list[str]:
    return [tool.name for tool in TOOLBOX.listed(secret)]


def mcp(secret: str, name: str, arguments: dict | None = None):
    return async_to_sync(TOOLBOX.call)(secret, name, arguments)


def answered(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def refusal_of(result) -> dict:
    assert result.is_error
    code = result.structured_content["code"]
    assert result.content[0].text.startswith(f"{code}: ")
    return result.structured_content


def refused_rows(since: dict[int, int]) -> list[tuple[str, str]]:
    """Refusals recorded since the snapshot: new rows, and repeats counted into a row."""
    rows = Activity.objects.filter(action="refused").order_by("id")
    return [
        (row.action, row.detail) for row in rows for _ in range(row.count - since.get(row.pk, 0))
    ]


def last_row() -> dict[int, int]:
    """A snapshot of the activity rows' counts (repeated refusals share a row)."""
    return dict(Activity.objects.values_list("id", "count"))


def without(body: dict, keys: set[str]) -> dict:
    return {key: value for key, value in body.items() if key not in keys}


def api_token(user) -> str:
    return do_create_api_token(user, name="mcp")[1]


@pytest.fixture
def person(owner):
    """The owner's API token, as MCP takes it."""
    return api_token(owner)


# Which tools, for whom ---------------------------------------------------------


def test_it_offers_the_agent_tools_to_an_agent_key(sender):
    assert tool_names(sender.agent_key) == AGENT_TOOLS


def test_it_offers_the_persons_tools_to_an_api_token(person):
    assert tool_names(person) == PERSON_TOOLS


def test_it_offers_nothing_to_a_wrong_secret(db):
    assert tool_names("cak_not-a-key") == []
    assert tool_names("") == []
    refusal = refusal_of(mcp("cak_not-a-key", "ListChats"))
    assert refusal["code"] == "not_authenticated"


def test_it_offers_nothing_to_a_chat_whose_switch_is_off(sender):
    do_set_peers(sender, enabled=False)
    assert tool_names(sender.agent_key) == []
    for name in AGENT_TOOLS:
        assert refusal_of(mcp(sender.agent_key, name, {}))["code"] == "peers_off"


def test_it_offers_nothing_to_a_chat_started_from_outside(owner, recipient):
    github = make_chat(owner, "pr-review", origin="github", peers=True)
    reachable(github)
    assert tool_names(github.agent_key) == []
    since = last_row()
    result = mcp(github.agent_key, "MessageChat", {"to": MISSING, "text": "hi"})
    assert refusal_of(result)["code"] == "outside_origin"
    assert refused_rows(since) == [("refused", "outside_origin")]


def test_it_checks_the_switch_again_on_every_call(sender, recipient):
    assert tool_names(sender.agent_key) == AGENT_TOOLS
    do_set_peers(sender, enabled=False)
    assert tool_names(sender.agent_key) == []
    do_set_peers(sender, enabled=True)
    assert answered(mcp(sender.agent_key, "ListChats"))["count"] == 1


def test_it_keeps_each_credential_to_its_own_tools(sender, person):
    assert refusal_of(mcp(sender.agent_key, "start_chat", {"name": "x"}))["code"] == "not_found"
    assert refusal_of(mcp(person, "ListChats"))["code"] == "not_found"


def test_it_names_the_reachable_chats_in_every_description(sender, recipient, other_chat):
    for tool in TOOLBOX.listed(sender.agent_key):
        assert f"- {recipient.name} (id {recipient.pk}, repository payments, branch main)" in (
            tool.description
        )
        assert f"id {sender.pk}" not in tool.description


def test_it_names_the_persons_chats_with_their_switch(owner, person, sender):
    quiet = make_chat(owner, "quiet", peers=False)
    description = TOOLBOX.listed(person)[0].description
    assert f"- {sender.name} (id {sender.pk}, repository shop-web, branch feat/cart)\n" in (
        description + "\n"
    )
    assert f"- quiet (id {quiet.pk}), agent-to-agent off" in description


# REST and MCP answer alike -------------------------------------------------------


def test_it_list_chats_answers_as_rest_does(sender, recipient, api):
    rest = api.call("GET", "/api/v1/agent/chats").json()
    result = mcp(sender.agent_key, "ListChats")
    assert answered(result) == rest
    assert f"{recipient.name} (id {recipient.pk}" in result.content[0].text


def test_it_read_chat_answers_as_rest_does(sender, recipient, api):
    check_send_message(sender, to=recipient.pk, text="which port?", reply_to=None)
    rest = api.call("GET", f"/api/v1/agent/chats/{recipient.pk}?limit=5").json()
    result = mcp(sender.agent_key, "ReadChat", {"chat": recipient.pk, "limit": 5})
    assert answered(result) == rest
    assert rest["count"] == 1
    assert "which port?" in result.content[0].text
    assert result.content[0].text.startswith(f"The latest 1 entries of {recipient.name}")


def test_it_message_chat_answers_as_rest_does(sender, recipient, api):
    rest = api.call(
        "POST", "/api/v1/agent/messages", {"to": recipient.pk, "text": "hi", "wait_seconds": 0}
    )
    assert rest.status_code == 201
    result = mcp(
        sender.agent_key, "MessageChat", {"to": recipient.pk, "text": "hi", "waitSeconds": 0}
    )
    body = answered(result)
    assert without(body, PER_MESSAGE) == without(rest.json(), PER_MESSAGE)
    assert PeerMessage.objects.filter(pk=body["id"], text="hi").exists()
    assert result.content[0].text == f"Sent {body['id']} to {recipient.name}: {body['words']}."


def test_it_the_persons_reads_answer_as_rest_does(sender, recipient, person, owner_api):
    check_send_message(sender, to=recipient.pk, text="which port?", reply_to=None)
    pairs = [
        ("/api/v1/chats", "list_peer_chats", {}),
        (f"/api/v1/chats/{sender.pk}/reach", "list_peer_chats", {"chat": sender.pk}),
        (f"/api/v1/messages?chat={sender.pk}", "read_peers", {"chat": sender.pk}),
        ("/api/v1/messages?limit=1", "read_peers", {"limit": 1}),
    ]
    for path, name, arguments in pairs:
        assert answered(mcp(person, name, arguments)) == owner_api.call("GET", path).json(), name


def test_it_the_persons_changes_answer_as_rest_does(sender, person, owner_api):
    switched = answered(mcp(person, "set_peer_reach", {"chat": sender.pk, "peers": False}))
    assert switched == owner_api.call("GET", f"/api/v1/chats/{sender.pk}").json()
    assert switched["peers"] is False
    updated = answered(mcp(person, "update_chat", {"chat": sender.pk, "model": "opus"}))
    assert updated == owner_api.call("GET", f"/api/v1/chats/{sender.pk}").json()
    started = answered(mcp(person, "start_chat", {"name": "fresh", "peers": True}))
    rest = owner_api.call("POST", "/api/v1/chats", {"name": "fresher", "peers": True}).json()
    assert without(started, {"id", "name", "agent_key"}) == without(
        rest, {"id", "name", "agent_key"}
    )
    assert tool_names(started["agent_key"]) == AGENT_TOOLS


def test_it_the_persons_sends_answer_as_rest_does(sender, recipient, person, owner_api):
    fields = {"from_chat": sender.pk, "to_chat": recipient.pk, "text": "as you"}
    rest = owner_api.call("POST", "/api/v1/messages", fields).json()
    result = mcp(
        person,
        "send_peer_message",
        {"fromChat": sender.pk, "toChat": recipient.pk, "text": "as you"},
    )
    body = answered(result)
    assert without(body, PER_MESSAGE) == without(rest, PER_MESSAGE)
    assert result.content[0].text.startswith(f"Sent as {sender.name}: {body['id']} ")
    cancelled = answered(mcp(person, "cancel_peer_message", {"message": body["id"]}))
    assert cancelled == owner_api.call("GET", f"/api/v1/messages/{body['id']}").json()
    assert cancelled["state"] == "cancelled"


def test_it_connect_chats_answers_as_rest_does(owner, person, owner_api):
    first, second, third = (make_chat(owner, name) for name in ("one", "two", "three"))
    reachable(first, second, third)  # connect offers chats that ran lately, as the page does
    rest = owner_api.call(
        "POST", "/api/v1/connections", {"chats": [first.pk, second.pk], "brief": "b"}
    )
    result = mcp(person, "connect_chats", {"chats": [first.pk, third.pk], "brief": "b"})
    body = answered(result)
    assert [m["to_chat"] for m in body["items"]] == [first.pk, third.pk]
    assert body["count"] == rest.json()["count"] == 2
    assert result.content[0].text.startswith("Connected one and three: both switched on")


# Waiting inside the call ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_it_message_chat_returns_the_answer_inside_the_call(owner, sender, recipient):
    call = asyncio.create_task(
        TOOLBOX.call(
            sender.agent_key,
            "MessageChat",
            {"to": recipient.pk, "text": "port?", "waitSeconds": 10},
        )
    )
    answer = await answer_when_asked(recipient, text="8080")
    result = await asyncio.wait_for(call, 10)
    body = answered(result)
    assert body["answer"] == answer.pk
    assert body["answer_message"]["text"] == "8080"
    assert body["answer_message"]["detail"] == "waiting_call"
    assert result.content[0].text == f"{recipient.name} answered (message {answer.pk}):\n\n8080"
