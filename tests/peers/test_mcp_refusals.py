"""Refusals through MCP and REST are the same: the same body (code and sentence), the
same activity row; and another account's ids read exactly like missing ones."""

import pytest

from peers.actions import (
    check_mark_seen,
    check_send_as_person,
    check_send_message,
    do_set_limits,
)
from peers.models import Activity
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.peers.test_mcp_tools import (
    MISSING,
    answered,
    api_token,
    last_row,
    mcp,
    refusal_of,
    refused_rows,
)


@pytest.fixture
def person(owner):
    return api_token(owner)


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


def test_it_the_agents_refusals_are_alike(owner, sender, recipient, api):
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


def test_it_the_limits_refuse_alike(sender, recipient, api):
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


def person_refusals(sender, recipient, delivered) -> list[tuple]:
    """(REST method, path, body), (MCP tool, arguments), and the code both answer."""
    to_chat = {"to_chat": recipient.pk, "text": ""}
    rename = {"name": recipient.name}
    return [
        (
            ("POST", "/api/v1/messages", to_chat),
            ("send_peer_message", {"toChat": recipient.pk, "text": ""}),
            "empty_message",
        ),
        (
            ("POST", "/api/v1/messages", {"to_chat": MISSING, "text": "x"}),
            ("send_peer_message", {"toChat": MISSING, "text": "x"}),
            "no_chat",
        ),
        (
            ("POST", "/api/v1/messages/msg_x/cancel", None),
            ("cancel_peer_message", {"message": "msg_x"}),
            "no_message",
        ),
        (
            ("POST", f"/api/v1/messages/{delivered}/cancel", None),
            ("cancel_peer_message", {"message": delivered}),
            "already_delivered",
        ),
        (
            ("POST", "/api/v1/connections", {"chats": [sender.pk], "brief": "b"}),
            ("connect_chats", {"chats": [sender.pk], "brief": "b"}),
            "invalid_input",
        ),
        (
            ("GET", f"/api/v1/messages?chat={MISSING}", None),
            ("read_peers", {"chat": MISSING}),
            "no_chat",
        ),
        (
            ("PATCH", f"/api/v1/chats/{MISSING}", {"peers": True}),
            ("set_peer_reach", {"chat": MISSING, "peers": True}),
            "no_chat",
        ),
        (
            ("PATCH", f"/api/v1/chats/{sender.pk}", rename),
            ("update_chat", {"chat": sender.pk, **rename}),
            "name_taken",
        ),
        (("POST", "/api/v1/chats", {"name": ""}), ("start_chat", {"name": ""}), "invalid_input"),
    ]


def test_it_the_persons_refusals_are_alike(sender, recipient, person, owner_api):
    message = check_send_message(sender, to=recipient.pk, text="x", reply_to=None)
    check_mark_seen(recipient, ids=[message.pk])  # delivered: too late to cancel
    for rest, tool, code in person_refusals(sender, recipient, message.pk):
        got = assert_alike(lambda r=rest: owner_api.call(*r), lambda t=tool: mcp(person, *t))
        assert got == code, tool


# Another account's ids read exactly like missing ones ----------------------------


def test_it_an_outsiders_ids_read_like_missing_ones_through_every_tool(
    sender, person, outsider_chat
):
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


def test_it_an_outsiders_message_reads_like_a_missing_one(sender, person, outsider_chat, outsider):
    reachable(outsider_chat)
    theirs = check_send_as_person(outsider, from_chat=None, to=outsider_chat.pk, text="x")
    missing = refusal_of(mcp(person, "cancel_peer_message", {"message": "msg_missing"}))
    assert refusal_of(mcp(person, "cancel_peer_message", {"message": theirs.pk})) == missing
    theirs.refresh_from_db()
    assert theirs.state != "cancelled"
