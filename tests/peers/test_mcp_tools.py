"""The MCP tools in process (the transport is tested in test_mcp_live.py): which tools
each credential sees, and that REST and MCP answer alike, refusals included."""

import asyncio

import pytest
from asgiref.sync import async_to_sync

from accounts.actions import do_create_api_token
from chats.actions import do_set_peers
from peers.actions import check_send_as_person, check_send_message, do_set_limits
from peers.mcp.server import TOOLBOX
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.peers.test_waiting import answer_when_asked

AGENT_TOOLS = ["ListChats", "ReadChat", "MessageChat"]
PERSON_TOOLS = [
    "list_peer_chats",
    "connect_chats",
    "send_peer_message",
    "read_peers",
    "set_peer_reach",
    "cancel_peer_message",
    "start_chat",
    "update_chat",
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


def refused_rows(since: int) -> list[tuple[str, str]]:
    rows = Activity.objects.filter(id__gt=since, action="refused")
    return [(row.action, row.detail) for row in rows]


def last_row() -> int:
    return Activity.objects.order_by("-id").values_list("id", flat=True).first() or 0


def without(body: dict, keys: set[str]) -> dict:
    return {key: value for key, value in body.items() if key not in keys}


@pytest.fixture
def person(owner):
    """The owner's API token, as MCP takes it."""
    return do_create_api_token(owner, name="mcp")[1]


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


def test_list_chats_answers_as_rest_does(sender, recipient, api):
    rest = api.call("GET", "/api/v1/agent/chats").json()
    result = mcp(sender.agent_key, "ListChats")
    assert answered(result) == rest
    assert f"{recipient.name} (id {recipient.pk}" in result.content[0].text


def test_read_chat_answers_as_rest_does(sender, recipient, api):
    check_send_message(sender, to=recipient.pk, text="which port?", reply_to=None)
    rest = api.call("GET", f"/api/v1/agent/chats/{recipient.pk}?limit=5").json()
    result = mcp(sender.agent_key, "ReadChat", {"chat": recipient.pk, "limit": 5})
    assert answered(result) == rest
    assert rest["count"] == 1
    assert "which port?" in result.content[0].text
    assert result.content[0].text.startswith(f"The latest 1 entries of {recipient.name}")


def test_message_chat_answers_as_rest_does(sender, recipient, api):
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


def test_the_persons_reads_answer_as_rest_does(sender, recipient, person, owner_api):
    check_send_message(sender, to=recipient.pk, text="which port?", reply_to=None)
    pairs = [
        ("/api/v1/chats", "list_peer_chats", {}),
        (f"/api/v1/chats/{sender.pk}/reach", "list_peer_chats", {"chat": sender.pk}),
        (f"/api/v1/messages?chat={sender.pk}", "read_peers", {"chat": sender.pk}),
        ("/api/v1/messages?limit=1", "read_peers", {"limit": 1}),
    ]
    for path, name, arguments in pairs:
        assert answered(mcp(person, name, arguments)) == owner_api.call("GET", path).json(), name


def test_the_persons_changes_answer_as_rest_does(sender, person, owner_api):
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


def test_the_persons_sends_answer_as_rest_does(sender, recipient, person, owner_api):
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


def test_connect_chats_answers_as_rest_does(owner, person, owner_api):
    first, second, third = (make_chat(owner, name) for name in ("one", "two", "three"))
    rest = owner_api.call(
        "POST", "/api/v1/connections", {"chats": [first.pk, second.pk], "brief": "b"}
    )
    result = mcp(person, "connect_chats", {"chats": [first.pk, third.pk], "brief": "b"})
    body = answered(result)
    assert [m["to_chat"] for m in body["items"]] == [first.pk, third.pk]
    assert body["count"] == rest.json()["count"] == 2
    assert result.content[0].text.startswith("Connected one and three: both switched on")


def send_pair(to: str, text, reply_to: str | None = None) -> tuple:
    """The same MessageChat, as REST's body and as MCP's arguments (camelCase)."""
    rest = {"to": to, "text": text, "reply_to": reply_to, "wait_seconds": 0}
    tool = {"to": to, "text": text, "replyTo": reply_to, "waitSeconds": 0}
    return ("/api/v1/agent/messages", rest), ("MessageChat", tool)


def read_pair(chat: str) -> tuple:
    return (f"/api/v1/agent/chats/{chat}", None), ("ReadChat", {"chat": chat})


def agent_refusals(sender, recipient, dormant) -> list[tuple]:
    return [
        send_pair(MISSING, "x"),
        send_pair(sender.pk, "x"),
        send_pair(dormant.pk, "x"),
        send_pair(recipient.pk, " "),
        send_pair(recipient.pk, "x" * 8001),
        send_pair(recipient.pk, "x", reply_to="msg_x"),
        send_pair(recipient.pk, 5),
        read_pair(MISSING),
        read_pair(dormant.pk),
    ]


def assert_alike(rest_call, mcp_call) -> str:
    since = last_row()
    rest = rest_call()
    rest_rows = refused_rows(since)
    since = last_row()
    refusal = refusal_of(mcp_call())
    assert refusal == rest.json(), refusal
    assert refused_rows(since) == rest_rows
    return refusal["code"]


def test_the_agents_refusals_are_alike(owner, sender, recipient, api):
    dormant = make_chat(owner, "dormant", peers=True)  # never ran: out of reach
    codes = []
    for (path, body), (name, arguments) in agent_refusals(sender, recipient, dormant):
        method = "POST" if body is not None else "GET"
        rest_call = lambda path=path, body=body, method=method: api.call(method, path, body)  # noqa: E731
        codes.append(
            assert_alike(rest_call, lambda n=name, a=arguments: mcp(sender.agent_key, n, a))
        )
    assert codes == [
        "no_chat",
        "not_yourself",
        "not_reachable",
        "empty_message",
        "message_too_long",
        "no_such_message",
        "invalid_input",
        "no_chat",
        "not_reachable",
    ]


def test_the_limits_refuse_alike(sender, recipient, api):
    do_set_limits({"chat_per_hour": 1, "list_read_per_hour": 1})
    check_send_message(sender, to=recipient.pk, text="first", reply_to=None)
    arguments = {"to": recipient.pk, "text": "second", "wait_seconds": 0}
    code = assert_alike(
        lambda: api.call("POST", "/api/v1/agent/messages", arguments),
        lambda: mcp(sender.agent_key, "MessageChat", {**arguments}),
    )
    assert code == "limit_chat_hour"
    answered(mcp(sender.agent_key, "ListChats"))
    code = assert_alike(
        lambda: api.call("GET", "/api/v1/agent/chats"), lambda: mcp(sender.agent_key, "ListChats")
    )
    assert code == "limit_list_read"


def test_the_persons_refusals_are_alike(sender, recipient, person, owner_api):
    delivered = check_send_message(sender, to=recipient.pk, text="x", reply_to=None)
    PeerMessage.objects.filter(pk=delivered.pk).update(state="delivered")
    pairs = [
        (
            ("POST", "/api/v1/messages", {"to_chat": recipient.pk, "text": ""}),
            ("send_peer_message", {"toChat": recipient.pk, "text": ""}),
        ),
        (
            ("POST", "/api/v1/messages", {"to_chat": MISSING, "text": "x"}),
            ("send_peer_message", {"toChat": MISSING, "text": "x"}),
        ),
        (
            ("POST", "/api/v1/messages/msg_x/cancel", None),
            ("cancel_peer_message", {"message": "msg_x"}),
        ),
        (
            ("POST", f"/api/v1/messages/{delivered.pk}/cancel", None),
            ("cancel_peer_message", {"message": delivered.pk}),
        ),
        (
            ("POST", "/api/v1/connections", {"chats": [sender.pk], "brief": "b"}),
            ("connect_chats", {"chats": [sender.pk], "brief": "b"}),
        ),
        (("GET", f"/api/v1/messages?chat={MISSING}", None), ("read_peers", {"chat": MISSING})),
        (
            ("PATCH", f"/api/v1/chats/{MISSING}", {"peers": True}),
            ("set_peer_reach", {"chat": MISSING, "peers": True}),
        ),
        (
            ("PATCH", f"/api/v1/chats/{sender.pk}", {"name": recipient.name}),
            ("update_chat", {"chat": sender.pk, "name": recipient.name}),
        ),
        (("POST", "/api/v1/chats", {"name": ""}), ("start_chat", {"name": ""})),
    ]
    codes = [
        assert_alike(lambda r=rest: owner_api.call(*r), lambda m=tool: mcp(person, *m))
        for rest, tool in pairs
    ]
    assert codes == [
        "empty_message",
        "no_chat",
        "no_message",
        "already_delivered",
        "invalid_input",
        "no_chat",
        "no_chat",
        "name_taken",
        "invalid_input",
    ]


# Another account's ids read exactly like missing ones ----------------------------


def test_an_outsiders_ids_read_like_missing_ones_through_every_tool(sender, person, outsider_chat):
    calls = [
        (sender.agent_key, "ReadChat", lambda chat: {"chat": chat}),
        (sender.agent_key, "MessageChat", lambda chat: {"to": chat, "text": "x", "waitSeconds": 0}),
        (person, "list_peer_chats", lambda chat: {"chat": chat}),
        (person, "read_peers", lambda chat: {"chat": chat}),
        (person, "set_peer_reach", lambda chat: {"chat": chat, "peers": False}),
        (person, "update_chat", lambda chat: {"chat": chat, "name": "mine"}),
        (person, "send_peer_message", lambda chat: {"toChat": chat, "text": "x"}),
        (
            person,
            "send_peer_message",
            lambda chat: {"fromChat": chat, "toChat": sender.pk, "text": "x"},
        ),
        (person, "connect_chats", lambda chat: {"chats": [sender.pk, chat], "brief": "b"}),
    ]
    for secret, name, arguments in calls:
        missing = refusal_of(mcp(secret, name, arguments(MISSING)))
        theirs = refusal_of(mcp(secret, name, arguments(outsider_chat.pk)))
        assert theirs == missing, name
        assert missing["code"] == "no_chat", name
    assert not Activity.objects.filter(target=outsider_chat).exists()
    outsider_chat.refresh_from_db()
    assert (outsider_chat.name, outsider_chat.peers) == ("secret", True)


def test_an_outsiders_message_reads_like_a_missing_one(sender, person, outsider_chat, outsider):
    theirs = check_send_as_person(outsider, from_chat=None, to=outsider_chat.pk, text="x")
    missing = refusal_of(mcp(person, "cancel_peer_message", {"message": "msg_missing"}))
    assert refusal_of(mcp(person, "cancel_peer_message", {"message": theirs.pk})) == missing
    theirs.refresh_from_db()
    assert theirs.state != "cancelled"


# Waiting inside the call ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_message_chat_returns_the_answer_inside_the_call(owner, sender, recipient):
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
