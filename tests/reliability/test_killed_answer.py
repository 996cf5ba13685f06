"""A turn worker killed while it sends an origin's answer: the answer, recorded with the
turn's end, is sent again once the dead sender's claim runs out, under the same delivery
id (so the receiver drops the repeat), and is recorded sent once (docs/origins.md)."""

from datetime import timedelta

import pytest

from origins import signing
from origins.actions import send_due_replies
from origins.models import OriginReply
from peers.models import Activity
from tests.origins.conftest import make_origin
from tests.origins.receiver import start_receiver
from tests.origins.test_answers import ask
from tests.reliability.procs import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def holding_receiver():
    receiver, server = start_receiver()
    receiver.holding = True
    yield receiver
    receiver.released.set()
    server.shutdown()
    server.server_close()


def test_it_sends_an_answer_its_killed_sender_left_unfinished_once_more(
    owner, processes, holding_receiver, monkeypatch, settings
):
    # The receiver listens on loopback, in the worker as here.
    monkeypatch.setenv("ORIGIN_PRIVATE_URLS", "1")
    monkeypatch.setenv("ORIGIN_REPLY_POLL_SECONDS", "0.2")
    settings.ORIGIN_PRIVATE_URLS = True
    origin = make_origin(owner, settings={"callback_url": holding_receiver.url})
    chat = ask(origin, "hello")
    doomed = processes("worker", "doomed")
    assert holding_receiver.arrived.wait(30), doomed.output()
    doomed.kill()

    reply = wait_for(lambda: OriginReply.objects.filter(thread__chat=chat).first(), "the reply")
    assert (reply.state, reply.attempts) == ("pending", 0)
    assert send_due_replies() == 0  # still the dead sender's claim: nobody else sends it
    assert send_due_replies(reply.next_attempt_at) == 1

    reply.refresh_from_db()
    assert (reply.state, reply.attempts) == ("sent", 1)
    first, again = holding_receiver.requests
    assert first.headers[signing.DELIVERY] == again.headers[signing.DELIVERY]
    assert first.body == again.body
    assert send_due_replies(reply.next_attempt_at + timedelta(hours=2)) == 0
    sent = Activity.objects.filter(chat=chat, detail__contains="answer sent")
    assert sent.count() == 1
