"""MessageChat with a wait: the answer comes back inside the call (path waiting_call)."""

import asyncio
import multiprocessing
import os
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from peers import actions
from peers.models import PeerMessage
from peers.waiting import send_and_wait
from tests.peers import race

pytestmark = pytest.mark.django_db(transaction=True)


async def answer_when_asked(recipient, *, text: str, timeout: float = 10) -> PeerMessage:
    """The recipient's side: waits for the question in the database, then answers it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        question = await PeerMessage.objects.filter(to_chat=recipient).afirst()
        if question is not None:
            return await sync_to_async(actions.check_send_message)(
                recipient, to=question.from_chat_id, text=text, reply_to=question.pk
            )
        await asyncio.sleep(0.02)
    raise AssertionError("the question never arrived")


def answer_in_this_thread(recipient, *, text: str, timeout: float) -> PeerMessage:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        question = PeerMessage.objects.filter(to_chat=recipient).first()
        if question is not None:
            return actions.check_send_message(
                recipient, to=question.from_chat_id, text=text, reply_to=question.pk
            )
        time.sleep(0.02)
    raise AssertionError("the question never arrived")


async def test_it_returns_the_answer_inside_the_waiting_call(sender, recipient):
    waiting = asyncio.create_task(
        send_and_wait(sender, to=recipient.pk, text="which port?", wait_seconds=10)
    )
    answer = await answer_when_asked(recipient, text="8080")
    message, taken = await asyncio.wait_for(waiting, 10)

    assert taken is not None and taken.pk == answer.pk
    assert (taken.state, taken.detail) == ("delivered", "waiting_call")
    assert message.answer_id == answer.pk


async def test_it_returns_the_state_when_time_is_up(sender, recipient):
    message, answer = await send_and_wait(sender, to=recipient.pk, text="hello?", wait_seconds=0.3)
    assert answer is None
    assert (message.state, message.detail) == ("queued", "waking")
    assert message.waiting_until is None


async def test_it_does_not_wait_for_a_stopped_chat(sender, recipient):
    from chats.actions import do_stop_chat

    await sync_to_async(do_stop_chat)(recipient)
    message, answer = await asyncio.wait_for(
        send_and_wait(sender, to=recipient.pk, text="there?", wait_seconds=30), 5
    )
    assert answer is None and message.detail == "held_until_you_write"


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs a channel layer across processes"
)
def test_it_takes_an_answer_sent_by_another_process(sender, recipient):
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    db_name = str(connection.settings_dict["NAME"])
    waiter = context.Process(
        target=race.wait_for_answer, args=(db_name, sender.pk, recipient.pk, results)
    )
    waiter.start()
    answer = answer_in_this_thread(recipient, text="8080", timeout=30)
    message_id, answer_id, detail = results.get(timeout=30)
    waiter.join(timeout=10)

    assert answer_id == answer.pk and detail == "waiting_call"
    assert PeerMessage.objects.get(pk=message_id).answer_id == answer.pk
