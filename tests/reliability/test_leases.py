"""A running turn holds a lease its worker renews; once it runs out, any worker fails it."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from agents.recovery import WORKER_LOST, reclaim_expired_turns
from chats import actions
from chats.models import Turn
from peers.actions import check_send_as_person
from peers.models import PeerMessage
from tests.peers.conftest import running

pytestmark = pytest.mark.django_db


@pytest.fixture
def lease(settings):
    settings.TURN_LEASE_SECONDS = 30
    return timedelta(seconds=20)  # two thirds of it


def test_it_gives_a_claimed_turn_a_lease(chat, lease):
    before = timezone.now()
    turn = running(chat)
    assert before + lease <= turn.lease_until <= timezone.now() + lease


def test_it_renews_only_the_workers_own_running_turns(chat, other_chat, lease):
    mine = running(chat)
    theirs = running(other_chat)
    Turn.objects.filter(pk=theirs.pk).update(worker="elsewhere")
    with time_machine.travel(timezone.now() + timedelta(seconds=15)):
        assert actions.do_renew_leases("tests") == 1
        renewed = timezone.now() + lease
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert abs((mine.lease_until - renewed).total_seconds()) < 1
    assert theirs.lease_until < mine.lease_until


def test_it_fails_a_turn_whose_lease_ran_out_and_holds_its_messages(chat, owner):
    turn = running(chat)
    message = check_send_as_person(owner, from_chat=None, to=chat.pk, text="ping", reply_to=None)
    assert message.state == PeerMessage.State.PENDING
    actions.check_prompt(chat, text="next please")

    assert reclaim_expired_turns(turn.lease_until - timedelta(seconds=1)) == 0
    assert reclaim_expired_turns(turn.lease_until + timedelta(seconds=1)) == 1

    turn.refresh_from_db()
    chat.refresh_from_db()
    message.refresh_from_db()
    assert turn.state == Turn.State.FAILED
    assert turn.error == WORKER_LOST
    # "next please" waits to run: the chat reads running from its 202 on, failure or not.
    assert chat.status == "running"
    assert chat.entries.filter(kind="notice", text=f"The turn failed: {WORKER_LOST}").exists()
    assert (message.state, message.reason) == ("queued", "held_until_you_write")
    following = actions.claim_next_turn("healthy")
    assert following is not None and following.prompt == "next please"


def test_it_leaves_a_renewed_turn_alone(chat):
    turn = running(chat)
    later = turn.lease_until + timedelta(seconds=5)
    with time_machine.travel(later - timedelta(seconds=1)):
        actions.do_renew_leases("tests")
    assert reclaim_expired_turns(later) == 0
    turn.refresh_from_db()
    assert turn.state == Turn.State.RUNNING
