"""Resend a failed answer (the delivery log, REST, MCP): queued once however often it is
asked, sent once; the limits hold (a disabled origin, a sent answer, MOST_RESENDS)."""

import threading

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from chats.models import Chat
from origins.actions import check_resend_answer, send_due_replies
from origins.actions.answers import do_reply_failed
from origins.actions.resend import MOST_RESENDS
from origins.models import OriginReply
from tests.origins.conftest import make_origin, post_hook, signed
from tests.peers.test_mcp_tools import answered, api_token, mcp

pytestmark = pytest.mark.django_db


@pytest.fixture
def failed(owner, receiver):
    """A failed answer of a webhook origin whose receiver now answers."""
    origin = make_origin(owner, settings={"callback_url": receiver.url})
    answer = post_hook(Client(), origin, *signed(origin, {"text": "x", "thread": "t1"}))
    chat = Chat.objects.get(pk=answer.json()["chat"])
    now = timezone.now()
    return OriginReply.objects.create(
        thread=chat.origin_thread,
        text="the answer",
        state=OriginReply.State.FAILED,
        attempts=settings.ORIGIN_REPLY_ATTEMPTS,
        last_error="ConnectError: refused",
        next_attempt_at=now,
        created_at=now,
    )


def resend_path(reply: OriginReply) -> str:
    origin = reply.thread.origin
    return f"/api/v1/origins/{origin.public_id}/answers/{reply.pk}/resend"


def test_it_a_double_click_resends_a_failed_answer_once(owner_client, failed, receiver):
    origin = failed.thread.origin
    page = f"/settings/origins/{origin.public_id}/log/"
    log = owner_client.get(page).content.decode()
    assert "ConnectError: refused" in log and "Resend" in log
    for _ in range(2):
        answer = owner_client.post(f"{page}answers/{failed.pk}/resend/")
        assert answer.status_code == 302 and answer["Location"] == page
    failed.refresh_from_db()
    assert (failed.state, failed.resends) == ("pending", 1)
    assert send_due_replies() == 1 and send_due_replies() == 0
    assert len(receiver.requests) == 1
    failed.refresh_from_db()
    assert failed.state == "sent"


def test_it_rest_and_mcp_resend_alike_and_once(owner_api, owner, failed):
    first = owner_api.call("POST", resend_path(failed))
    assert first.status_code == 200, first.content
    again = answered(
        mcp(
            api_token(owner),
            "resend_origin_answer",
            {"origin": failed.thread.origin.public_id, "answer": failed.pk},
        )
    )
    assert again == first.json() and again["state"] == "pending" and again["resends"] == 1
    assert OriginReply.objects.get().resends == 1


def test_it_a_resent_answer_gets_a_fresh_round_of_tries_then_fails_again(owner_api, failed):
    owner_api.call("POST", resend_path(failed))
    failed.refresh_from_db()
    for _ in range(settings.ORIGIN_REPLY_ATTEMPTS - 1):
        do_reply_failed(failed, "ConnectError: still down", timezone.now())
        assert failed.state == "pending"
    do_reply_failed(failed, "ConnectError: still down", timezone.now())
    assert failed.state == "failed"


def test_it_the_limits_hold(owner_api, failed):
    origin = failed.thread.origin
    origin.enabled = False
    origin.save()
    refused = owner_api.call("POST", resend_path(failed))
    assert (refused.status_code, refused.json()["code"]) == (409, "origin_disabled")
    origin.enabled = True
    origin.save()
    OriginReply.objects.filter(pk=failed.pk).update(resends=MOST_RESENDS)
    limited = owner_api.call("POST", resend_path(failed))
    assert (limited.status_code, limited.json()["code"]) == (429, "limit_resends")
    OriginReply.objects.filter(pk=failed.pk).update(state="sent")
    sent = owner_api.call("POST", resend_path(failed))
    assert (sent.status_code, sent.json()["code"]) == (409, "already_sent")
    assert OriginReply.objects.get().state == "sent"


def test_it_another_origins_answer_reads_like_a_missing_one(owner_api, owner, failed):
    other = make_origin(owner, "other")
    path = f"/api/v1/origins/{other.public_id}/answers/{failed.pk}/resend"
    missing = f"/api/v1/origins/{other.public_id}/answers/999999/resend"
    assert owner_api.call("POST", path).json() == owner_api.call("POST", missing).json()
    huge = f"/api/v1/origins/{other.public_id}/answers/{2**70}/resend"
    assert owner_api.call("POST", huge).status_code in (400, 404)
    assert OriginReply.objects.get().state == "failed"


def test_it_the_log_lists_requests_and_answers(owner_api, failed):
    origin = failed.thread.origin
    requests = owner_api.call("GET", f"/api/v1/origins/{origin.public_id}/requests").json()
    answers = owner_api.call("GET", f"/api/v1/origins/{origin.public_id}/answers").json()
    assert requests["count"] == 1 and requests["items"][0]["chat"] == answers["items"][0]["chat"]
    assert answers["items"][0]["last_error"] == "ConnectError: refused"


@pytest.mark.django_db(transaction=True)
def test_it_two_resends_at_the_same_moment_queue_it_once(failed):
    origin = failed.thread.origin
    barrier = threading.Barrier(2)
    states: list[str] = []

    def click() -> None:
        barrier.wait()
        try:
            states.append(check_resend_answer(origin, failed.pk).state)
        finally:
            connection.close()

    clicks = [threading.Thread(target=click) for _ in range(2)]
    for thread in clicks:
        thread.start()
    for thread in clicks:
        thread.join()
    assert states == ["pending", "pending"]
    assert OriginReply.objects.get().resends == 1


def test_an_answer_whose_chat_was_deleted_mid_send_is_skipped_not_a_crash(failed):
    from origins.actions.answers import do_reply_sent

    OriginReply.objects.filter(pk=failed.pk).delete()  # its thread went with its chat
    do_reply_sent(failed, timezone.now())
    do_reply_failed(failed, "ConnectError: gone", timezone.now())
    assert not OriginReply.objects.filter(pk=failed.pk).exists()
