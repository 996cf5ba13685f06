"""MessageChat with a wait: the answer comes back inside the call (path waiting_call)."""

import asyncio
import multiprocessing
import os
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from peers import actions
from peers import actions as peer_actions
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

    await sync_to_async(peer_actions.check_stop_chat)(recipient)
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


@pytest.fixture
def quick_recheck(monkeypatch):
    monkeypatch.setattr("peers.waiting.RECHECK_SECONDS", 0.1)


async def test_it_takes_the_answer_when_its_hint_is_lost(
    sender, recipient, quick_recheck, monkeypatch
):
    monkeypatch.setattr("kernel.events.group_send", lambda group, event: None)
    waiting = asyncio.create_task(
        send_and_wait(sender, to=recipient.pk, text="which port?", wait_seconds=10)
    )
    answer = await answer_when_asked(recipient, text="8080")
    message, taken = await asyncio.wait_for(waiting, 5)
    assert taken is not None and taken.pk == answer.pk and taken.path == "waiting_call"


class BrokenLayer:
    """A channel layer whose server went away."""

    async def new_channel(self):
        raise ConnectionError("redis is down")

    async def group_add(self, group, channel):
        raise ConnectionError("redis is down")


async def test_it_still_waits_when_the_channel_layer_is_down(
    sender, recipient, quick_recheck, monkeypatch
):
    monkeypatch.setattr("peers.waiting.get_channel_layer", BrokenLayer)
    waiting = asyncio.create_task(
        send_and_wait(sender, to=recipient.pk, text="which port?", wait_seconds=10)
    )
    answer = await answer_when_asked(recipient, text="8080")
    _, taken = await asyncio.wait_for(waiting, 5)
    assert taken is not None and taken.pk == answer.pk


async def test_it_the_inbox_answers_as_soon_as_a_message_arrives(sender, recipient):
    from peers.waiting import wait_for_inbox

    polling = asyncio.create_task(wait_for_inbox(recipient, wait=10))
    await asyncio.sleep(0.05)
    sent = await sync_to_async(actions.check_send_message)(sender, to=recipient.pk, text="hi")
    started = time.monotonic()
    messages = await asyncio.wait_for(polling, 5)
    assert [m.pk for m in messages] == [sent.pk]
    assert time.monotonic() - started < 1.5  # the hint, not the two-second recheck


async def test_it_the_inbox_returns_nothing_when_time_is_up(recipient):
    from peers.waiting import wait_for_inbox

    assert await wait_for_inbox(recipient, wait=0.2) == []
