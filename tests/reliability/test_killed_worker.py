"""A worker killed with SIGKILL mid-turn: its chat fails within the lease bound, its
messages are held for the person, the prompt behind it runs; other workers' turns live on."""

import time

import pytest

from chats.actions import check_prompt
from chats.models import Chat, Turn
from peers.actions import check_send_as_person
from peers.models import PeerMessage
from tests.conftest import make_chat
from tests.reliability.conftest import LEASE_SECONDS
from tests.reliability.procs import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def running_on(chat: Chat) -> Turn | None:
    return Turn.objects.filter(chat=chat, state=Turn.State.RUNNING).first()


def test_it_fails_a_killed_workers_turn_and_runs_the_next_prompt(owner, chat, processes):
    survivor_chat = make_chat(owner, "survivor")
    doomed, healthy = processes("worker", "doomed"), processes("worker", "healthy")
    check_prompt(chat, text="work 20")
    check_prompt(survivor_chat, text="work 20")
    turn = wait_for(lambda: running_on(chat), "the turn to start")
    survivor = wait_for(lambda: running_on(survivor_chat), "the other turn to start")
    if turn.worker != "doomed":  # each worker takes one turn (TURNS_CONCURRENCY=1)
        doomed, healthy = healthy, doomed
    doomed.kill()
    killed_at = time.monotonic()
    # Sent after the kill: a live worker's next demo step would take it first (a race).
    message = check_send_as_person(owner, from_chat=None, to=chat.pk, text="ping", reply_to=None)
    assert message.state == PeerMessage.State.PENDING
    check_prompt(chat, text="after the crash", send_queued=False)
    # The chat reads running throughout: "after the crash" waits to run.
    wait_for(
        lambda: Turn.objects.get(pk=turn.pk).state == Turn.State.FAILED,
        "the turn to fail",
        timeout=LEASE_SECONDS + 5,
    )
    assert time.monotonic() - killed_at <= LEASE_SECONDS + 1

    turn.refresh_from_db()
    assert turn.error == "the worker running this turn stopped"
    message.refresh_from_db()
    assert (message.state, message.reason) == ("queued", "held_until_you_write")
    survivor.refresh_from_db()
    assert survivor.state == Turn.State.RUNNING  # a healthy worker's turn is left alone

    wait_for(
        lambda: chat.entries.filter(kind="answer", text="after the crash").exists(),
        "the next prompt to run",
        timeout=15,
    )
    wait_for(
        lambda: Turn.objects.filter(pk=survivor.pk, state=Turn.State.DONE).exists(),
        "the healthy worker's turn to finish",
        timeout=20,
    )
    message.refresh_from_db()
    assert message.reason == "held_until_you_write"  # send_queued=False kept it held
