"""A finished turn of an outside chat sends its final text back, signed, with retries."""

import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from agents.runner import TurnRunner
from chats.actions import check_prompt
from chats.models import Chat
from crosstalk.services import ServerProcess
from origins import signing
from origins.actions import send_due_replies
from origins.models import OriginReply
from peers.models import Activity
from tests.agents.conftest import wait_until
from tests.origins.conftest import make_origin, post_hook, signed

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fast_steps(settings):
    settings.DEMO_STEP_SECONDS = 0


def ask(origin, text: str, thread: str = "t1") -> Chat:
    response = post_hook(
        Client(), origin, *signed(origin, {"text": text, "thread": thread, "author": "bob"})
    )
    assert response.status_code == 202, response.content
    return Chat.objects.get(pk=response.json()["chat"])


def webhook_origin(owner, receiver, **fields):
    return make_origin(owner, settings={"callback_url": receiver.url}, **fields)


async def test_it_the_final_text_reaches_the_callback_signed(owner, receiver, fast_steps):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    chat = await sync_to_async(ask)(origin, "work 3\nfail")
    await TurnRunner("tests").run_until_idle()
    reply = await OriginReply.objects.aget(thread__chat=chat)
    assert reply.state == "pending"
    assert await sync_to_async(send_due_replies)() == 1
    [request] = receiver.requests
    body = json.loads(request.body)
    # The demo agent never obeys outside content: no work, no failure, one line read back.
    assert body == {
        "origin": origin.public_id,
        "thread": "t1",
        "chat": chat.pk,
        "text": 'Read a request from webhook by bob: "work 3"',
    }
    signing.check_signature(
        origin.secret,
        given=request.headers[signing.SIGNATURE],
        timestamp=request.headers[signing.TIMESTAMP],
        body=request.body,
    )
    assert request.headers[signing.DELIVERY].startswith("rep_")
    await reply.arefresh_from_db()
    assert reply.state == "sent" and reply.attempts == 1 and reply.sent_at is not None
    assert await Activity.objects.filter(chat=chat, detail__contains="answer sent").aexists()


def test_it_a_refused_answer_is_retried_with_back_off_then_fails(owner, receiver, settings):
    settings.ORIGIN_REPLY_ATTEMPTS = 3
    receiver.status = 503
    origin = webhook_origin(owner, receiver)
    chat = ask(origin, "hello")
    reply = OriginReply.objects.create(
        thread=chat.origin_thread,
        text="hi",
        next_attempt_at=timezone.now(),
        created_at=timezone.now(),
    )
    now = timezone.now()
    assert send_due_replies(now) == 1
    reply.refresh_from_db()
    assert reply.state == "pending" and reply.attempts == 1
    assert "answered 503" in reply.last_error
    assert reply.next_attempt_at == now + timedelta(seconds=10)
    assert send_due_replies(now + timedelta(seconds=9)) == 0  # not due yet
    assert send_due_replies(now + timedelta(seconds=10)) == 1
    reply.refresh_from_db()
    assert reply.next_attempt_at == now + timedelta(seconds=30)  # 10 s more, then 20 s
    assert send_due_replies(now + timedelta(seconds=30)) == 1
    reply.refresh_from_db()
    assert reply.state == "failed" and reply.attempts == 3
    assert len(receiver.requests) == 3
    assert Activity.objects.filter(chat=chat, detail__contains="answer failed after 3").exists()


def test_it_an_answer_that_comes_back_later_is_sent_then(owner, receiver):
    receiver.status = 500
    origin = webhook_origin(owner, receiver)
    chat = ask(origin, "hello")
    reply = OriginReply.objects.create(
        thread=chat.origin_thread,
        text="hi",
        next_attempt_at=timezone.now(),
        created_at=timezone.now(),
    )
    now = timezone.now()
    send_due_replies(now)
    receiver.status = 200
    send_due_replies(now + timedelta(seconds=10))
    reply.refresh_from_db()
    assert reply.state == "sent" and reply.attempts == 2 and reply.last_error == ""


def test_it_a_disabled_origin_sends_no_answer(owner, receiver, settings):
    settings.ORIGIN_REPLY_ATTEMPTS = 1
    origin = webhook_origin(owner, receiver)
    chat = ask(origin, "hello")
    reply = OriginReply.objects.create(
        thread=chat.origin_thread,
        text="hi",
        next_attempt_at=timezone.now(),
        created_at=timezone.now(),
    )
    origin.enabled = False
    origin.save()
    send_due_replies()
    reply.refresh_from_db()
    assert reply.state == "failed" and "disabled" in reply.last_error
    assert receiver.requests == []


async def test_it_a_persons_own_chat_queues_no_answer(chat, fast_steps):
    await sync_to_async(check_prompt)(chat, text="hello")
    await TurnRunner("tests").run_until_idle()
    assert (await Chat.objects.aget(pk=chat.pk)).last_answered == "hello"
    assert not await OriginReply.objects.aexists()


async def test_it_the_runners_loop_sends_what_is_due(owner, receiver, fast_steps):
    from origins.actions import send_due_replies_async

    origin = await sync_to_async(webhook_origin)(owner, receiver)
    await sync_to_async(ask)(origin, "hello there")
    await TurnRunner("tests").run_until_idle()
    assert await send_due_replies_async() == 1
    assert json.loads(receiver.requests[0].body)["text"].endswith('"hello there"')
    assert await send_due_replies_async() == 0  # sent once


async def test_it_a_failed_turn_answers_that_it_failed_without_saying_why(
    owner, receiver, fast_steps
):
    from agents import turns
    from chats.actions import claim_next_turn
    from chats.models import Turn

    origin = await sync_to_async(webhook_origin)(owner, receiver)
    chat = await sync_to_async(ask)(origin, "hello")
    turn = await sync_to_async(claim_next_turn)("tests")
    assert turn.chat_id == chat.pk
    await sync_to_async(turns.fail)(turn, error="/srv/secret/path exploded")
    assert (await Turn.objects.aget(pk=turn.pk)).state == "failed"
    await sync_to_async(send_due_replies)()
    text = json.loads(receiver.requests[0].body)["text"]
    assert "could not finish" in text and "/srv" not in text


async def test_it_sends_answers_from_a_server_process_without_a_second_command(
    owner, receiver, fast_steps, settings
):
    # `make run` starts one process: its runner starts the answer loop beside itself.
    settings.TURNS_IN_PROCESS = True
    settings.ORIGIN_REPLY_POLL_SECONDS = 0.1
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    process = ServerProcess(no_app)
    process.start()
    try:
        chat = await sync_to_async(ask)(origin, "hello there")
        await wait_until(
            lambda: OriginReply.objects.filter(thread__chat=chat, state="sent").exists(),
            "the answer to be sent",
        )
    finally:
        await process.stop()
    [request] = receiver.requests
    assert json.loads(request.body)["text"].endswith('"hello there"')


async def no_app(scope, receive, send):
    pass
