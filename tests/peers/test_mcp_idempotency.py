"""MCP tools that create something take an optional idempotencyKey: the same key from
the same credential returns the first answer again and creates nothing more."""

import pytest

from crosstalk.mcp.server import TOOLBOX
from peers.models import PeerMessage
from tests.peers.test_mcp_tools import answered, api_token, mcp, refusal_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def person(owner) -> str:
    """The owner's API token."""
    return api_token(owner)


def test_it_offers_the_key_on_every_tool_that_creates(sender, person):
    agent = {tool.name: tool.input_schema for tool in TOOLBOX.listed(sender.agent_key)}
    people = {tool.name: tool.input_schema for tool in TOOLBOX.listed(person)}
    assert "idempotencyKey" in agent["MessageChat"]["properties"]
    assert "idempotencyKey" not in agent["ReadChat"]["properties"]
    for name in ("connect_chats", "send_peer_message", "start_chat"):
        assert "idempotencyKey" in people[name]["properties"], name


def test_it_a_retried_message_chat_sends_once(sender, recipient):
    call = {"to": recipient.pk, "text": "which port?", "waitSeconds": 0, "idempotencyKey": "k1"}
    first, again = (
        mcp(sender.agent_key, "MessageChat", call),
        mcp(sender.agent_key, "MessageChat", call),
    )
    assert answered(first) == answered(again)
    assert first.content[0].text == again.content[0].text
    assert PeerMessage.objects.filter(from_chat=sender).count() == 1

    other = mcp(sender.agent_key, "MessageChat", {**call, "idempotencyKey": "k2"})
    assert answered(other)["id"] != answered(first)["id"]
    assert PeerMessage.objects.filter(from_chat=sender).count() == 2


def test_it_the_same_key_for_another_message_is_refused(sender, recipient):
    call = {"to": recipient.pk, "text": "which port?", "waitSeconds": 0, "idempotencyKey": "k"}
    answered(mcp(sender.agent_key, "MessageChat", call))
    reused = mcp(sender.agent_key, "MessageChat", {**call, "text": "something else"})
    assert refusal_of(reused)["code"] == "idempotency_key_reused"
    assert PeerMessage.objects.filter(from_chat=sender).count() == 1


def test_it_a_refusal_is_answered_again_and_a_key_is_kept_per_credential(sender, recipient, person):
    empty = {"toChat": recipient.pk, "text": " ", "idempotencyKey": "same"}
    first = mcp(person, "send_peer_message", empty)
    assert refusal_of(first)["code"] == "empty_message"
    assert refusal_of(mcp(person, "send_peer_message", empty)) == refusal_of(first)
    call = {"to": recipient.pk, "text": "hello", "waitSeconds": 0, "idempotencyKey": "same"}
    answered(mcp(sender.agent_key, "MessageChat", call))  # another credential, its own key
    assert PeerMessage.objects.count() == 1


def test_it_a_key_must_be_a_string(sender, recipient):
    call = {"to": recipient.pk, "text": "hi", "waitSeconds": 0, "idempotencyKey": 7}
    assert refusal_of(mcp(sender.agent_key, "MessageChat", call))["code"] == "invalid_input"
