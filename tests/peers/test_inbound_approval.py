"""Inbound `ask`: another chat's message waits for the person (no wake, no delivery)
until approved (then the fastest path) or denied (cancelled, `denied`)."""

import pytest

from chats.inputs import ChatUpdate
from chats.models import Chat, Turn
from kernel.refusals import Refusal
from peers import actions
from peers.models import Activity, PeerMessage
from peers.selectors import inbox, waiting_for_delivery
from peers.serializers import message_json, sent_json
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running
from tests.peers.test_mcp_tools import answered, api_token, mcp, person, refusal_of, tool_names

State = PeerMessage.State


def ask(chat: Chat) -> Chat:
    return actions.check_update_chat(chat.user, chat, spec=ChatUpdate(inbound="ask"))


def send(sender, recipient, text="which port?", **kwargs):
    return actions.check_send_message(sender, to=recipient.pk, text=text, **kwargs)


__all__ = ["person"]  # the fixture, shared


@pytest.fixture
def asking(recipient):
    return ask(recipient)


def test_it_holds_a_peers_message_to_an_ask_chat_without_waking_it(sender, asking):
    message = send(sender, asking)
    body = message_json(message)
    assert (body["state"], body["detail"], body["reason"]) == (
        "queued",
        "awaiting_approval",
        "awaiting_approval",
    )
    assert body["words"] == "Queued — awaiting your approval"
    assert not message.woke
    assert not asking.turns.exists()
    assert inbox(asking) == [] and not waiting_for_delivery(asking, include_held=True).exists()


def test_it_tells_the_sender_not_to_wait(sender, asking):
    message = send(sender, asking, wait_seconds=30)
    assert message.waiting_until is None
    assert "approval" in sent_json(message)["note"]


def test_it_holds_even_while_the_ask_chat_runs(sender, asking):
    running(asking)
    message = send(sender, asking)
    assert message.reason == "awaiting_approval"
    assert actions.deliver_between_steps(asking) == []
    assert actions.deliver_as_finished(asking) == []


def test_it_approve_wakes_an_idle_chat_by_the_fastest_path(owner, sender, asking):
    message = send(sender, asking)
    approved = actions.check_approve_message(owner, message_id=message.pk)
    assert (approved.state, approved.detail, approved.woke) == (State.QUEUED, "waking", True)
    turn = asking.turns.get(state=Turn.State.REQUESTED)
    assert turn.trigger == Turn.Trigger.WAKE
    assert Activity.objects.filter(message=message, action="approve").exists()


def test_it_approve_gives_a_running_chat_the_message_at_its_next_step(owner, sender, asking):
    running(asking)
    message = send(sender, asking)
    actions.check_approve_message(owner, message_id=message.pk)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.PENDING, "next_step")
    assert [m.pk for m in actions.deliver_between_steps(asking)] == [message.pk]


def test_it_deny_cancels_with_detail_denied(owner, sender, asking):
    message = send(sender, asking)
    denied = actions.check_deny_message(owner, message_id=message.pk)
    body = message_json(denied)
    assert (body["state"], body["detail"]) == ("cancelled", "denied")
    assert body["words"] == "Cancelled — denied by the person"
    assert not asking.turns.exists()
    assert Activity.objects.filter(message=message, action="deny").exists()


def test_it_refuses_to_decide_twice_or_a_message_not_awaiting(owner, sender, recipient):
    plain = send(sender, recipient)
    with pytest.raises(Refusal) as caught:
        actions.check_approve_message(owner, message_id=plain.pk)
    assert caught.value.code == "not_awaiting_approval"
    ask(recipient)
    message = send(sender, recipient)
    actions.check_deny_message(owner, message_id=message.pk)
    with pytest.raises(Refusal) as again:
        actions.check_approve_message(owner, message_id=message.pk)
    assert again.value.code == "not_awaiting_approval"


def test_the_persons_own_messages_and_connect_briefs_never_wait(owner, sender, asking):
    mine = actions.check_send_as_person(owner, from_chat=None, to=asking.pk, text="hi")
    as_chat = actions.check_send_as_person(owner, from_chat=sender.pk, to=asking.pk, text="hi")
    briefs = actions.check_connect_chats(owner, chat_ids=[sender.pk, asking.pk], brief="sync")
    for message in (mine, as_chat, *briefs):
        assert message.reason != "awaiting_approval"


def test_it_asks_before_a_message_reaches_a_more_permissive_chat(owner, sender):
    bold = make_chat(owner, "bold", agent="claude-code", permission_mode="bypassPermissions")
    actions.check_update_chat(owner, bold, spec=ChatUpdate(inbound="accept", peers=True))
    reachable(bold)
    assert send(sender, bold).reason == "awaiting_approval"
    owner.ask_when_more_permissive = False
    owner.save(update_fields=["ask_when_more_permissive"])
    sender.user = owner
    assert send(sender, bold, "again").reason != "awaiting_approval"


@pytest.mark.parametrize(
    ("agent", "mode", "inbound"),
    [
        ("claude-code", "bypassPermissions", "ask"),
        ("claude-code", "default", "accept"),
        ("claude-code", "", "accept"),
        ("codex", "danger-full-access", "ask"),
        ("codex", "workspace-write", "accept"),
        ("gemini", "yolo", "ask"),
        ("gemini", "auto_edit", "accept"),
        ("demo", "", "accept"),
    ],
)
def test_a_new_chat_asks_when_its_mode_bypasses_approvals(owner, agent, mode, inbound):
    chat = make_chat(owner, f"{agent}-{mode or 'blank'}", agent=agent, permission_mode=mode)
    assert chat.inbound == inbound


def test_the_accounts_default_wins_over_the_mode(owner):
    owner.inbound_for_new_chats = "ask"
    owner.save(update_fields=["inbound_for_new_chats"])
    assert make_chat(owner, "careful").inbound == "ask"


# REST ---------------------------------------------------------------------------


def test_rest_patch_inbound_and_approve_and_deny(owner_api, sender, recipient):
    patched = owner_api.call("PATCH", f"/api/v1/chats/{recipient.pk}", {"inbound": "ask"})
    assert patched.status_code == 200 and patched.json()["inbound"] == "ask"
    first, second = send(sender, recipient, "one"), send(sender, recipient, "two")

    approved = owner_api.call("POST", f"/api/v1/messages/{first.pk}/approve")
    denied = owner_api.call("POST", f"/api/v1/messages/{second.pk}/deny/")
    again = owner_api.call("POST", f"/api/v1/messages/{second.pk}/approve")

    assert approved.status_code == 200 and approved.json()["detail"] == "waking"
    assert denied.status_code == 200
    assert (denied.json()["state"], denied.json()["detail"]) == ("cancelled", "denied")
    assert again.status_code == 409 and again.json()["code"] == "not_awaiting_approval"


def test_rest_refuses_a_bad_inbound(owner_api, recipient):
    for value in ("maybe", "-ask", "ask\x00", 1, None):
        response = owner_api.call("PATCH", f"/api/v1/chats/{recipient.pk}", {"inbound": value})
        if value is None:
            assert response.status_code == 200  # absent: unchanged
            continue
        assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    recipient.refresh_from_db()
    assert recipient.inbound == "accept"


def test_rest_another_accounts_message_reads_as_missing(outsider_api, sender, asking):
    message = send(sender, asking)
    for verb in ("approve", "deny"):
        theirs = outsider_api.call("POST", f"/api/v1/messages/{message.pk}/{verb}")
        missing = outsider_api.call("POST", f"/api/v1/messages/msg_0000000000000000/{verb}")
        assert (theirs.status_code, theirs.json()) == (missing.status_code, missing.json())
        assert theirs.json()["code"] == "no_message"
    message.refresh_from_db()
    assert message.reason == "awaiting_approval"


@pytest.mark.parametrize("message_id", ["-x", "msg_\x00", "a" * 5000, "%00"])
def test_rest_odd_ids_are_refused_as_json(owner_api, sender, asking, message_id):
    message = send(sender, asking)
    response = owner_api.call("POST", f"/api/v1/messages/{message_id}/approve")
    # NUL is refused before routing (400 invalid_input), anything else reads as missing.
    assert (response.status_code, response.json()["code"]) in (
        (404, "no_message"),
        (400, "invalid_input"),
    )
    message.refresh_from_db()
    assert message.reason == "awaiting_approval"


def test_a_chat_key_cannot_approve_its_own_incoming_message(sender, asking):
    message = send(sender, asking)
    for key in (asking.agent_key, sender.agent_key):
        response = ApiClient(key).call("POST", f"/api/v1/messages/{message.pk}/approve")
        assert response.status_code == 401
    message.refresh_from_db()
    assert message.reason == "awaiting_approval"


def test_a_chat_key_cannot_switch_its_own_inbound(asking):
    response = ApiClient(asking.agent_key).call(
        "PATCH", f"/api/v1/chats/{asking.pk}", {"inbound": "accept"}
    )
    assert response.status_code == 401
    asking.refresh_from_db()
    assert asking.inbound == "ask"


# MCP ----------------------------------------------------------------------------


def test_mcp_update_chat_sets_inbound_as_rest_does(person, owner_api, recipient):
    updated = answered(mcp(person, "update_chat", {"chat": recipient.pk, "inbound": "ask"}))
    assert updated == owner_api.call("GET", f"/api/v1/chats/{recipient.pk}").json()
    assert updated["inbound"] == "ask"
    bad = refusal_of(mcp(person, "update_chat", {"chat": recipient.pk, "inbound": "-x"}))
    assert bad["code"] == "invalid_input"


def test_mcp_approve_and_deny_answer_as_rest_does(person, owner_api, sender, asking):
    first, second = send(sender, asking, "one"), send(sender, asking, "two")
    approved = answered(mcp(person, "approve_peer_message", {"message": first.pk}))
    denied = answered(mcp(person, "deny_peer_message", {"message": second.pk}))
    assert approved == owner_api.call("GET", f"/api/v1/messages/{first.pk}").json()
    assert denied == owner_api.call("GET", f"/api/v1/messages/{second.pk}").json()
    assert denied["detail"] == "denied"
    again = refusal_of(mcp(person, "deny_peer_message", {"message": second.pk}))
    rest = owner_api.call("POST", f"/api/v1/messages/{second.pk}/deny").json()
    assert again == rest and again["code"] == "not_awaiting_approval"


def test_mcp_another_accounts_message_reads_as_missing(outsider, sender, asking):
    message = send(sender, asking)
    token = api_token(outsider)
    for tool in ("approve_peer_message", "deny_peer_message"):
        theirs = refusal_of(mcp(token, tool, {"message": message.pk}))
        missing = refusal_of(mcp(token, tool, {"message": "msg_0000000000000000"}))
        assert theirs == missing and theirs["code"] == "no_message"


def test_mcp_a_chat_key_has_no_approval_tools(sender, asking):
    message = send(sender, asking)
    for key in (sender.agent_key, asking.agent_key):
        assert "approve_peer_message" not in tool_names(key)
        refused = refusal_of(mcp(key, "approve_peer_message", {"message": message.pk}))
        assert refused["code"] == "not_found"
    message.refresh_from_db()
    assert message.reason == "awaiting_approval"


def test_list_chats_says_an_ask_chat_waits_for_its_person(api, sender, asking):
    [item] = api.call("GET", "/api/v1/agent/chats").json()["items"]
    assert item["inbound"] == "ask"
    assert item["how_fast"] == {
        "path": "awaiting_approval",
        "words": "after your person approves it",
        "median_seconds": None,
    }
