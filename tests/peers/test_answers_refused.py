"""Answers never vanish: a final-text answer refused by a limit (or because its chat
came from outside) is recorded on the message it answers — the card reads "answer
not sent: <reason>", the API's `answer_refused` says it, the asking chat gets a
notice — and one that fails on the database is tried again, then recorded."""

import importlib

import pytest
from django.db import OperationalError

from peers import actions
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.peers.test_answers_and_chains import finish, woken_turn

send_module = importlib.import_module("peers.actions.send")


def refused_question(sender, recipient, limit: dict) -> PeerMessage:
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    actions.do_set_limits(limit)
    assert finish(woken_turn(recipient), "It listens on 8080.") == []
    question.refresh_from_db()
    return question


def test_it_an_answer_refused_by_a_limit_shows_everywhere(
    sender, recipient, owner_api, owner_client
):
    question = refused_question(sender, recipient, {"pair_per_window": 1})

    assert not question.answered
    assert question.answer_refused.startswith("limit_pair_window: ")
    body = owner_api.get(f"/api/v1/messages/{question.pk}").json()
    assert body["answer_refused"] == question.answer_refused and body["answer"] is None
    listed = owner_api.get("/api/v1/messages", {"chat": sender.pk}).json()["items"]
    assert [m["answer_refused"] for m in listed if m["id"] == question.pk] == [
        question.answer_refused
    ]
    notice = sender.entries.get(kind="notice", message_id=question.pk)
    assert "answer was not sent: limit_pair_window" in notice.text
    for chat in (sender, recipient):
        page = owner_client.get(f"/chats/{chat.pk}/").content.decode()
        assert "answer not sent: limit_pair_window" in page, chat.name
    assert Activity.objects.filter(action="refused", detail="limit_pair_window").exists()


def test_it_a_refused_answer_is_the_refusal_of_every_message_of_the_batch(sender, recipient):
    first = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    second = actions.check_send_message(sender, to=recipient.pk, text="and the host?")
    actions.do_set_limits({"pair_per_window": 2})

    assert finish(woken_turn(recipient), "8080 on localhost.") == []

    first.refresh_from_db()
    second.refresh_from_db()
    assert second.answer_refused.startswith("limit_pair_window: ")
    assert first.answer_refused == second.answer_refused and not first.answered
    # The sender is told once, for the batch.
    assert sender.entries.filter(kind="notice", text__contains="not sent").count() == 1


def test_it_an_answer_refused_by_the_wake_limit_shows_on_the_card(sender, recipient, owner_client):
    question = refused_question(sender, recipient, {"wakes_per_hour": 1})
    assert question.answer_refused.startswith("limit_wakes: ")
    page = owner_client.get(f"/chats/{sender.pk}/peers/", HTTP_HX_REQUEST="true").content.decode()
    assert "answer not sent: limit_wakes" in page


def test_it_an_outside_chats_answer_to_an_agent_is_recorded_not_lost(owner, sender):
    outside = make_chat(owner, "from-github", origin="github", peers=True)
    reachable(outside)
    question = actions.check_send_message(sender, to=outside.pk, text="status?")
    assert finish(woken_turn(outside), "green") == []
    question.refresh_from_db()
    assert question.answer_refused.startswith("outside_origin: ")


def test_it_an_answer_that_fails_on_the_database_is_tried_again(sender, recipient, monkeypatch):
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    real, calls = send_module.do_send_message, []

    def deadlocked_once(prepared):
        calls.append(prepared)
        if len(calls) == 1:
            raise OperationalError("deadlock detected")
        return real(prepared)

    monkeypatch.setattr(send_module, "do_send_message", deadlocked_once)
    (answer,) = finish(woken_turn(recipient), "8080")
    assert len(calls) == 2 and answer.reply_to_id == question.pk
    question.refresh_from_db()
    assert question.answer_id == answer.pk and question.answer_refused == ""


def test_it_an_answer_that_keeps_failing_is_recorded_with_its_reason(
    sender, recipient, monkeypatch
):
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")

    def deadlocked(prepared):
        raise OperationalError("deadlock detected")

    monkeypatch.setattr(send_module, "do_send_message", deadlocked)
    assert finish(woken_turn(recipient), "8080") == []
    question.refresh_from_db()
    assert question.answer_refused.startswith("server_error: ")
    assert sender.entries.filter(kind="notice", message_id=question.pk).exists()


@pytest.mark.parametrize("limit", [{"pair_per_window": 1}])
def test_it_a_refused_answer_reads_alike_through_mcp(sender, recipient, owner, limit):
    from accounts.actions import do_create_api_token
    from tests.peers.test_mcp_tools import answered, mcp

    question = refused_question(sender, recipient, limit)
    secret = do_create_api_token(owner, name="mcp")[1]
    body = answered(mcp(secret, "read_peers", {"chat": sender.pk}))
    (row,) = [m for m in body["items"] if m["id"] == question.pk]
    assert row["answer_refused"] == question.answer_refused
