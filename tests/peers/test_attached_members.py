"""Attached sessions are full members (issue 35): a session that only calls Crosstalk
(MCP, no hooks) counts as having run, gets what waits for it in every tool result and
with ReadInbox, and a prompt to its chat is queued for it, never run here."""

import time

import pytest
from asgiref.sync import async_to_sync

from chats.models import Chat, Turn
from crosstalk.mcp.server import TOOLBOX
from peers.actions import check_deny_message, check_send_message
from peers.mcp.carried import KEY, NOTICES
from peers.models import Notice, PeerMessage
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable

Path = PeerMessage.Path


def mcp(secret: str, name: str, arguments: dict | None = None):
    return async_to_sync(TOOLBOX.call)(secret, name, arguments)


def names(result) -> list[str]:
    assert not result.is_error, result.content[0].text
    return [chat["name"] for chat in result.structured_content["items"]]


@pytest.fixture
def attached(owner):
    """A Claude Code chat for a terminal session: no folder, never ran."""
    return make_chat(owner, "api-claude", agent="claude-code", folder="", peers=True)


def test_it_a_session_that_only_calls_is_listed_reachable_and_answerable(sender, attached):
    assert "api-claude" not in names(mcp(sender.agent_key, "ListChats"))
    assert names(mcp(attached.agent_key, "ListChats")) == ["checkout"]  # its first call

    assert "api-claude" in names(mcp(sender.agent_key, "ListChats"))
    sent = check_send_message(sender, to=attached.pk, text="which port?")
    answer = mcp(
        attached.agent_key, "MessageChat",
        {"to": sender.pk, "text": "8080", "replyTo": sent.pk, "waitSeconds": 0},
    )  # fmt: skip
    assert not answer.is_error, answer.content[0].text
    assert PeerMessage.objects.get(pk=sent.pk).answer.text == "8080"


def test_it_a_chat_seen_long_ago_is_not_reachable(sender, attached):
    mcp(attached.agent_key, "ListChats")
    Chat.objects.filter(pk=attached.pk).update(last_seen_at="2000-01-01T00:00Z")
    assert "api-claude" not in names(mcp(sender.agent_key, "ListChats"))


def test_it_marks_seen_at_most_once_a_minute(attached, django_assert_max_num_queries):
    mcp(attached.agent_key, "ListChats")
    first = Chat.objects.get(pk=attached.pk).last_seen_at
    mcp(attached.agent_key, "ListChats")
    assert Chat.objects.get(pk=attached.pk).last_seen_at == first


def test_it_every_tool_result_carries_what_waits(sender, attached):
    mcp(attached.agent_key, "ListChats")
    sent = [check_send_message(sender, to=attached.pk, text=f"M{i}") for i in range(5)]

    result = mcp(attached.agent_key, "ListChats")

    body = result.structured_content
    assert body["peer_message_ids"] == [m.pk for m in sent[:3]]
    assert body[f"{KEY}_left"] == 2
    carried = result.content[-1].text
    assert body[KEY] == carried  # framed in the JSON as in the text
    assert f'<peer-message id="{sent[0].pk}"' in carried and "call ReadInbox" in carried
    assert f'to="{sender.pk}" and replyTo="{sent[0].pk}"' in carried
    first = PeerMessage.objects.get(pk=sent[0].pk)
    assert (first.state, first.path) == ("delivered", Path.TOOL_RESULT)
    assert PeerMessage.objects.get(pk=sent[4].pk).state != "delivered"


def test_it_a_refused_call_carries_them_too(sender, attached):
    mcp(attached.agent_key, "ListChats")
    check_send_message(sender, to=attached.pk, text="HELLO")
    result = mcp(attached.agent_key, "ReadChat", {"chat": "chat_0000000000000000"})
    assert result.is_error and "HELLO" in result.structured_content[KEY]


def test_it_read_inbox_waits_and_marks_seen(sender, attached):
    mcp(attached.agent_key, "ListChats")
    empty = mcp(attached.agent_key, "ReadInbox", {"waitSeconds": 0})
    assert empty.structured_content["items"] == [] and "No message" in empty.content[0].text
    sent = check_send_message(sender, to=attached.pk, text="ping")

    result = mcp(attached.agent_key, "ReadInbox", {"waitSeconds": 5})

    assert [m["id"] for m in result.structured_content["items"]] == [sent.pk]
    assert f'<peer-message id="{sent.pk}"' in result.content[0].text
    assert PeerMessage.objects.get(pk=sent.pk).path == Path.INBOX


@pytest.mark.parametrize("bad", [{"waitSeconds": "-1"}, {"waitSeconds": 1, "x": 1}])
def test_it_read_inbox_refuses_bad_input(attached, bad):
    result = mcp(attached.agent_key, "ReadInbox", bad)
    assert result.is_error and result.structured_content["code"] == "invalid_input"


def test_it_read_inbox_is_refused_with_the_switch_off(owner):
    chat = make_chat(owner, "quiet", agent="claude-code", folder="", peers=False)
    result = mcp(chat.agent_key, "ReadInbox", {})
    assert result.is_error and result.structured_content["code"] == "peers_off"


def test_it_the_wait_ends_at_once_when_the_answer_is_refused(sender, recipient):
    from peers.actions.answers import do_refuse_answer
    from peers.waiting import wait_for_answer

    message = check_send_message(sender, to=recipient.pk, text="q", wait_seconds=20)
    do_refuse_answer(message, "not_reachable: gone")
    started = time.monotonic()
    _, answer = async_to_sync(wait_for_answer)(message)
    assert answer is None and time.monotonic() - started < 5


# A prompt to an attached chat -------------------------------------------------


def test_it_a_prompt_to_an_attached_chat_is_queued_for_its_session(owner_api, attached):
    response = owner_api.call("POST", f"/api/v1/chats/{attached.pk}/prompts", {"text": "Fix it"})

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["turn"] is None and body["status"] == "idle"
    queued = PeerMessage.objects.get(pk=body["queued_message"]["id"])
    assert (queued.to_chat_id, queued.sent_by, queued.state) == (attached.pk, "person", "queued")
    assert not Turn.objects.filter(chat=attached).exists()  # nothing runs here

    # The session's next tool call takes it.
    mcp(attached.agent_key, "ListChats")
    queued.refresh_from_db()
    assert (queued.state, queued.path) == ("delivered", Path.TOOL_RESULT)
    assert Chat.objects.get(pk=attached.pk).status != "failed"


def test_it_a_queued_prompt_sends_held_messages_on_only_when_asked(owner_api, sender, attached):
    reachable(sender, attached)
    Chat.objects.filter(pk=attached.pk).update(status="stopped")
    held = check_send_message(sender, to=attached.pk, text="held for you")
    assert PeerMessage.objects.get(pk=held.pk).reason == "held_until_you_write"
    prompts = f"/api/v1/chats/{attached.pk}/prompts"
    kept = owner_api.call("POST", prompts, {"text": "not yet", "send_queued": False})
    assert kept.status_code == 202, kept.content
    assert PeerMessage.objects.get(pk=held.pk).reason == "held_until_you_write"
    owner_api.call("POST", prompts, {"text": "now", "send_queued": True})
    assert PeerMessage.objects.get(pk=held.pk).reason == "for_its_session"


def test_it_the_composer_queues_it_too_and_says_so(owner_client, attached):
    page = owner_client.get(f"/chats/{attached.pk}/")
    assert "Queued for your attached session" in page.content.decode()
    owner_client.post(f"/chats/{attached.pk}/", {"text": "From the page", "send_queued": "on"})
    assert PeerMessage.objects.get(to_chat=attached).text == "From the page"
    assert not Turn.objects.filter(chat=attached).exists()


def test_it_a_queued_prompt_to_another_accounts_chat_is_no_chat(outsider_api, attached):
    response = outsider_api.call("POST", f"/api/v1/chats/{attached.pk}/prompts", {"text": "x"})
    assert response.status_code == 404
    assert not PeerMessage.objects.exists()


@pytest.mark.parametrize("text", ["", "   ", "a\x00b", "x" * 200_000])
def test_it_a_bad_queued_prompt_is_refused(owner_api, attached, text):
    response = owner_api.call("POST", f"/api/v1/chats/{attached.pk}/prompts", {"text": text})
    assert response.status_code in (400, 413), response.content
    assert not PeerMessage.objects.exists()


def test_it_a_chat_key_cannot_prompt(attached):
    response = ApiClient(attached.agent_key).call(
        "POST", f"/api/v1/chats/{attached.pk}/prompts", {"text": "-rf"}
    )
    assert response.status_code == 401
    assert not PeerMessage.objects.exists()


def test_it_a_prompt_to_a_chat_with_a_folder_still_runs(owner_api, owner):
    chat = make_chat(owner, "hosted", agent="demo", peers=True)
    reachable(chat)
    body = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "hi"}).json()
    assert body["turn"]["trigger"] == "prompt" and body["queued_message"] is None


def denied_by_the_person(attached, recipient) -> PeerMessage:
    """attached's message to an `ask` chat, denied: its sender has one notice to hear."""
    Chat.objects.filter(pk=recipient.pk).update(inbound="ask")
    mcp(attached.agent_key, "ListChats")  # seen: it takes part
    sent = check_send_message(attached, to=recipient.pk, text="may I?")
    check_deny_message(attached.user, message_id=sent.pk)
    return sent


def test_it_a_tool_result_carries_the_notices_of_its_sent_messages_once(attached, recipient):
    sent = denied_by_the_person(attached, recipient)
    first = mcp(attached.agent_key, "ListChats")
    told = first.structured_content[NOTICES]
    assert f'message="{sent.pk}" state="denied"' in told
    assert told in first.content[-1].text  # in the text the model reads, too
    again = mcp(attached.agent_key, "ListChats")
    assert NOTICES not in again.structured_content


def test_it_read_inbox_tells_the_notices_and_marks_them_told(attached, recipient):
    sent = denied_by_the_person(attached, recipient)
    result = mcp(attached.agent_key, "ReadInbox", {"waitSeconds": 0})
    assert not result.is_error, result.content[0].text
    assert [n["message"] for n in result.structured_content["notices"]] == [sent.pk]
    assert "denied" in result.content[0].text
    assert Notice.objects.get(message_id=sent.pk).told_at is not None
    quiet = mcp(attached.agent_key, "ReadInbox", {"waitSeconds": 0})
    assert "notices" not in quiet.structured_content
