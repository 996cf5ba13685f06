"""notifyWhenIdle: one notice when the recipient next ends a turn, never two, an expiry
that says so, the wake limit, and another account's chat answered as a missing one."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from agents import turns
from chats import actions as chat_actions
from peers import actions
from peers.actions.idle_notices import end_watch
from peers.actions.limits import CACHED, do_set_limits
from peers.framing import frame
from peers.models import IdleWatch, PeerMessage
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running
from tests.peers.test_mcp_tools import answered, mcp, refusal_of

MISSING = "chat_0000000000000000"
NOTICE = PeerMessage.SentBy.NOTICE


def subscribe(api: ApiClient, to: str, **fields):
    body = {"to": to, "notifyWhenIdle": True, **fields}
    return api.call("POST", "/api/v1/agent/messages", body)


def notices_to(chat) -> list[PeerMessage]:
    return list(PeerMessage.objects.filter(to_chat=chat, sent_by=NOTICE).order_by("created_at"))


def test_it_subscribes_without_text_and_notifies_once_when_the_turn_ends(api, sender, recipient):
    running(sender)  # the subscriber runs: the notice reaches it at its next step
    turn = running(recipient)
    response = subscribe(api, recipient.pk)
    assert response.status_code == 202, response.content
    body = response.json()
    assert set(body) == {"id", "chat", "state", "expires_at", "notice"}
    assert (body["chat"], body["state"], body["notice"]) == (recipient.pk, "open", None)
    assert not PeerMessage.objects.exclude(sent_by=NOTICE).exists()  # no message

    assert turns.finish(turn, final_text="Migrated the schema.\n\nAll tests pass.\nmore")
    (notice,) = notices_to(sender)
    assert (notice.from_chat_id, notice.sent_by, notice.state) == (recipient.pk, NOTICE, "pending")
    assert "is now idle" in notice.text and "Migrated the schema." in notice.text
    assert not notice.woke
    watch = IdleWatch.objects.get()
    assert (watch.outcome, watch.notice_id) == ("notified", notice.pk)
    # Its next turn's end tells nobody again.
    chat_actions.check_prompt(recipient, text="again")
    again = chat_actions.claim_next_turn("tests")
    turns.finish(again, final_text="done again")
    assert len(notices_to(sender)) == 1
    # The notice is never answered by the subscriber's final text.
    sender_turn = sender.turns.get(state="running")
    actions.take_for_turn(sender_turn)
    turns.finish(sender_turn, final_text="ok")
    assert not PeerMessage.objects.filter(to_chat=recipient, sent_by="agent").exists()


def test_it_sends_the_text_and_subscribes_in_one_call(api, sender, recipient):
    response = subscribe(api, recipient.pk, text="migrate it", waitSeconds=0)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["text"] == "migrate it" and body["notify_when_idle"]["state"] == "open"
    assert IdleWatch.objects.get().message_id == body["id"]
    turn = chat_actions.claim_next_turn("tests")  # the message woke it
    actions.take_for_turn(turn)
    turns.finish(turn, final_text="Migrated.")
    (notice,) = notices_to(sender)
    # The final text answered the message too; the notice is its own, once.
    assert PeerMessage.objects.filter(to_chat=sender, sent_by="agent").count() == 1
    assert "Migrated." in notice.text


def test_a_plain_send_says_it_made_no_subscription(api, sender, recipient):
    body = api.call(
        "POST", "/api/v1/agent/messages", {"to": recipient.pk, "text": "hi", "waitSeconds": 0}
    ).json()
    assert body["notify_when_idle"] is None
    empty = api.call("POST", "/api/v1/agent/messages", {"to": recipient.pk, "waitSeconds": 0})
    assert (empty.status_code, empty.json()["code"]) == (400, "empty_message")


def test_a_failed_turn_notifies_with_its_state(api, sender, recipient):
    turn = running(recipient)
    subscribe(api, recipient.pk)
    turns.fail(turn, error="the CLI crashed")
    (notice,) = notices_to(sender)
    assert "is now failed" in notice.text


def test_a_stop_notifies(api, sender, recipient):
    running(recipient)
    subscribe(api, recipient.pk)
    actions.check_stop_chat(recipient)
    (notice,) = notices_to(sender)
    assert "is now stopped" in notice.text


def test_two_subscriptions_to_one_chat_are_one_notice(api, sender, recipient):
    turn = running(recipient)
    first, second = subscribe(api, recipient.pk).json(), subscribe(api, recipient.pk).json()
    assert first["id"] == second["id"] and IdleWatch.objects.count() == 1
    turns.finish(turn, final_text="done")
    assert len(notices_to(sender)) == 1


def test_an_idle_subscriber_is_woken_and_it_counts_as_a_wake(api, sender, recipient):
    turn = running(recipient)
    subscribe(api, recipient.pk)
    turns.finish(turn, final_text="done")
    (notice,) = notices_to(sender)
    assert (notice.state, notice.reason, notice.woke) == ("queued", "waking", True)


def test_over_the_wake_limit_the_notice_waits_instead(api, sender, recipient, owner):
    do_set_limits({"wakes_per_hour": 1})
    CACHED.clear()
    turn = running(recipient)
    subscribe(api, recipient.pk)
    third = reachable_chat(owner)
    actions.check_send_message(third, to=sender.pk, text="wake up")  # the hour's one wake
    chat_actions.claim_next_turn("tests")  # taken, so the notice would wake it again
    sender.refresh_from_db()
    assert sender.status == "running"
    sender.status = "idle"
    sender.save(update_fields=["status"])
    turns.finish(turn, final_text="done")
    (notice,) = notices_to(sender)
    assert (notice.state, notice.woke) == ("queued", False)


def reachable_chat(owner):
    chat = make_chat(owner, "third", peers=True)
    reachable(chat)
    return chat


def test_a_subscription_expires_after_the_reach_window_and_says_so(api, sender, recipient):
    subscribe(api, recipient.pk)
    assert actions.do_expire_watches(timezone.now()) == 0
    later = timezone.now() + timedelta(hours=49)
    reachable(sender)
    assert actions.do_expire_watches(later) == 1
    (notice,) = notices_to(sender)
    assert "did not end a turn within 48 hours" in notice.text and "expired" in notice.text
    assert IdleWatch.objects.get().outcome == "expired"
    assert actions.do_expire_watches(later) == 0
    assert len(notices_to(sender)) == 1


def test_the_notice_reads_as_crosstalks_not_the_chats(api, sender, recipient):
    turn = running(recipient)
    subscribe(api, recipient.pk)
    turns.finish(turn, final_text="done")
    (notice,) = notices_to(sender)
    framed = frame(notice)
    assert 'sent_by="notice"' in framed and "Crosstalk sent this notice" in framed
    assert "replyTo" not in framed
    # Not an entry of the chat it is about: only the subscriber's.
    assert not recipient.entries.filter(message_id=notice.pk).exists()
    assert sender.entries.filter(message_id=notice.pk).exists()


# Attackers ---------------------------------------------------------------------


def test_another_accounts_chat_answers_as_a_missing_one(outsider_chat, sender, recipient):
    reachable(outsider_chat)
    theirs = ApiClient(outsider_chat.agent_key)
    owners = subscribe(theirs, recipient.pk)
    missing = subscribe(theirs, MISSING)
    assert (owners.status_code, owners.json()) == (missing.status_code, missing.json())
    assert owners.json()["code"] == "no_chat"
    with_text = subscribe(theirs, recipient.pk, text="hi", waitSeconds=0)
    assert with_text.json()["code"] == "no_chat"
    assert not IdleWatch.objects.exists()


@pytest.mark.parametrize("to", ["-rf", "chat_\x00abc", "x" * 5000])
def test_hostile_recipients_are_missing_chats(api, sender, to):
    response = subscribe(api, to)
    assert response.status_code in (400, 404)
    assert not IdleWatch.objects.exists()


def test_it_refuses_itself_and_a_switched_off_sender(api, sender, recipient):
    assert subscribe(api, sender.pk).json()["code"] == "not_yourself"
    actions.do_set_peers(sender, enabled=False)
    assert subscribe(api, recipient.pk).json()["code"] == "peers_off"
    assert not IdleWatch.objects.exists()


def test_a_non_boolean_is_invalid_input(api, recipient):
    response = subscribe(api, recipient.pk, notifyWhenIdle="yes")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


# MCP ---------------------------------------------------------------------------


def test_mcp_message_chat_subscribes_as_rest_does(sender, recipient, outsider_chat):
    result = answered(
        mcp(sender.agent_key, "MessageChat", {"to": recipient.pk, "notifyWhenIdle": True})
    )
    assert result["chat"] == recipient.pk and result["state"] == "open"
    reachable(outsider_chat)
    refused = refusal_of(
        mcp(outsider_chat.agent_key, "MessageChat", {"to": recipient.pk, "notifyWhenIdle": True})
    )
    assert refused["code"] == "no_chat"


# The pages -----------------------------------------------------------------------


def test_the_pages_say_it_is_crosstalks_notice(api, sender, recipient, owner_client):
    turn = running(recipient)
    subscribe(api, recipient.pk)
    turns.finish(turn, final_text="done")
    (notice,) = notices_to(sender)
    page = owner_client.get(f"/chats/{sender.pk}/").content.decode()
    assert "Crosstalk&#x27;s notice (notifyWhenIdle)" in page
    activity = owner_client.get("/activity/").content.decode()
    assert "Crosstalk sent" in activity and "a notice about" in activity


def test_two_ends_that_both_read_it_open_send_one_notice(api, sender, recipient):
    """Two turn ends (or an end and the expiry) racing: each read the subscription open;
    the conditional update lets one of them send."""
    subscribe(api, recipient.pk)
    first_read, second_read = IdleWatch.objects.get(), IdleWatch.objects.get()
    with transaction.atomic():
        first = end_watch(first_read, {sender.pk: sender}, "one", "notified")
        second = end_watch(second_read, {sender.pk: sender}, "two", "expired")
    assert first is not None and second is None
    assert [n.text for n in notices_to(sender)] == ["one"]
    assert IdleWatch.objects.get().outcome == "notified"
