"""Claude Code's own SendMessage and ListAgents, answered by Crosstalk's PreToolUse hook,
with the payload the real 2.1.332 sent (its `tool_input` holds the SendMessage fields)."""

import pytest

from peers.actions.limits import CACHED, do_set_limits
from peers.models import Activity, IdleWatch, PeerMessage
from tests.peers.conftest import reachable
from tests.peers.hooks import cli_chat, hook

CLI = "claude-code"
# As Claude Code 2.1.332 sent it (captured with a command hook and the fake model).
PRE_TOOL_USE = {
    "session_id": "fabcdf94-7b6f-4c88-991e-f7bf22e230e8",
    "transcript_path": "/home/dev/.claude/projects/-home-dev-w/fabcdf94.jsonl",
    "cwd": "/home/dev/w",
    "prompt_id": "68034247-9aa6-492a-b943-f3cd12023947",
    "permission_mode": "bypassPermissions",
    "effort": {"level": "medium"},
    "hook_event_name": "PreToolUse",
    "tool_name": "SendMessage",
    "tool_input": {
        "to": "payments-api",
        "summary": "hi",
        "message": "hi",
        "type": "message",
        "recipient": "payments-api",
        "recipient_kind": "name",
        "content": "hi",
    },
    "tool_use_id": "toolu_fake_6df3229f3d19450da81bd0cf",
}


@pytest.fixture
def claude(owner):
    return cli_chat(owner, CLI, "api-claude")


def pre_tool_use(chat, tool="SendMessage", **tool_input):
    payload = {**PRE_TOOL_USE, "tool_name": tool, "tool_input": tool_input}
    response = hook(chat, CLI, payload)
    assert response.status_code == 200, response.content
    return response.json()


def denied_with(answer: dict) -> str:
    out = answer["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    return out["permissionDecisionReason"]


def test_a_send_message_to_a_chats_name_becomes_a_crosstalk_message(claude, recipient):
    reason = denied_with(pre_tool_use(claude, to="payments-api", message="which port?"))
    message = PeerMessage.objects.get()
    assert (message.from_chat_id, message.to_chat_id, message.text) == (
        claude.pk,
        recipient.pk,
        "which port?",
    )
    assert (message.sent_by, message.state, message.reason) == ("agent", "queued", "waking")
    assert reason.startswith("Crosstalk routes messages")
    assert f"Sent {message.pk} to payments-api: Queued — waking it." in reason
    assert Activity.objects.filter(action="message", message=message).exists()  # the log
    assert recipient.entries.filter(message_id=message.pk, kind="peer_in").exists()  # the card


def test_its_ref_and_its_id_name_the_chat_too(claude, recipient):
    denied_with(pre_tool_use(claude, to="payments-api [3fa9c1]", message="one"))
    denied_with(pre_tool_use(claude, to=recipient.pk, message="two"))
    assert list(PeerMessage.objects.order_by("created_at").values_list("text", "to_chat")) == [
        ("one", recipient.pk),
        ("two", recipient.pk),
    ]


def test_a_name_that_is_no_chat_is_refused_pointing_at_message_chat(claude, recipient):
    reason = denied_with(pre_tool_use(claude, to="researcher", message="start on task 1"))
    assert "mcp__crosstalk__MessageChat" in reason and "nothing was sent" in reason
    assert not PeerMessage.objects.exists()


def test_list_agents_points_at_list_chats_and_lists_nothing(claude, recipient):
    reason = denied_with(pre_tool_use(claude, tool="ListAgents"))
    assert "mcp__crosstalk__ListChats" in reason
    assert recipient.name not in reason and recipient.pk not in reason


def test_other_tools_are_left_alone(claude):
    assert pre_tool_use(claude, tool="Bash", command="ls") == {}


def test_the_limits_hold_and_refusals_are_said(claude, recipient):
    do_set_limits({"chat_per_hour": 1})
    CACHED.clear()
    denied_with(pre_tool_use(claude, to="payments-api", message="one"))
    reason = denied_with(pre_tool_use(claude, to="payments-api", message="two"))
    assert "refused it (limit_chat_hour)" in reason
    assert PeerMessage.objects.count() == 1
    assert Activity.objects.filter(action="refused", detail__startswith="limit_chat_hour").exists()


def test_notify_when_idle_without_a_message_only_subscribes(claude, recipient):
    reason = denied_with(pre_tool_use(claude, to="payments-api", notify_when_idle=True))
    assert "You will hear once" in reason
    assert IdleWatch.objects.get().to_chat_id == recipient.pk
    assert not PeerMessage.objects.exists()


def test_a_switched_off_chat_sends_nothing(owner, recipient):
    off = cli_chat(owner, CLI, "quiet-claude")
    off.peers = False
    off.save(update_fields=["peers"])
    reason = denied_with(pre_tool_use(off, to="payments-api", message="hi"))
    assert "peers_off" in reason and not PeerMessage.objects.exists()
    listed = denied_with(pre_tool_use(off, tool="ListAgents"))
    assert "peers_off" in listed and "ListChats" not in listed


# Attackers ---------------------------------------------------------------------


def test_another_accounts_chat_is_no_chat_of_the_person(claude, outsider_chat):
    reachable(outsider_chat)
    by_name = denied_with(pre_tool_use(claude, to=outsider_chat.name, message="hi"))
    by_id = denied_with(pre_tool_use(claude, to=outsider_chat.pk, message="hi"))
    missing = denied_with(pre_tool_use(claude, to="chat_0000000000000000", message="hi"))
    assert by_id == missing.replace("chat_0000000000000000", outsider_chat.pk)
    assert "nothing was sent" in by_name and not PeerMessage.objects.exists()


@pytest.mark.parametrize("to", ["-rf", "--help", "x" * 5000, "", "  "])
def test_hostile_names_send_nothing(claude, recipient, to):
    reason = denied_with(pre_tool_use(claude, to=to, message="hi"))
    assert "nothing was sent" in reason or "needs `to`" in reason
    assert not PeerMessage.objects.exists()


def test_a_malformed_tool_input_is_refused(claude, recipient):
    reason = denied_with(pre_tool_use(claude, to=["payments-api"], message={"x": 1}))
    assert "needs `to`" in reason and not PeerMessage.objects.exists()


def test_a_name_in_another_case_is_the_same_chat(claude, recipient):
    denied_with(pre_tool_use(claude, to="Payments-API", message="hi"))
    assert PeerMessage.objects.get().to_chat_id == recipient.pk


def test_a_nul_in_the_payload_is_invalid_input(claude, recipient):
    payload = {**PRE_TOOL_USE, "tool_input": {"to": "pay\x00ments-api", "message": "hi"}}
    response = hook(claude, CLI, payload)
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")
    assert not PeerMessage.objects.exists()
