"""One lock order: the person writing as chat A to B races B's final-text answer to A,
8 pairs at once, 4 rounds, in threads on the real database. Before the order was one
(account, then chats by id, then messages), PostgreSQL found deadlocks here and lost
answers; now every send and every answer goes through, none retried.

On SQLite every writer is serialized by its IMMEDIATE transactions (there are no row
locks to take out of order), so the race runs there too and must simply pass."""

import logging
import threading

import pytest
from django.db import connection

from chats import actions as chat_actions
from chats.models import Turn
from peers import actions
from peers.models import PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable

pytestmark = pytest.mark.django_db(transaction=True)
PAIRS, ROUNDS = 8, 4
HIGH = dict.fromkeys(
    ("chat_per_hour", "wakes_per_hour", "pair_per_window", "pair_without_you", "chain_without_you"),
    10000,
)


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


def finished_turns(pairs) -> dict[str, Turn]:
    """Each B took A's question in a turn that ended with a final text (not yet sent)."""
    for a, b in pairs:
        actions.check_send_message(a, to=b.pk, text="which port?")
    turns = {}
    while (turn := chat_actions.claim_next_turn("tests")) is not None:
        actions.take_for_turn(turn)
        chat_actions.do_mark_turn_done(turn, final_text=f"{turn.chat.name} listens on 8080")
        turn.refresh_from_db()
        turns[turn.chat_id] = turn
    return turns


def race(jobs) -> list[str]:
    """Every job at once, each in a thread with its own connection; what each raised."""
    start, errors = threading.Barrier(len(jobs)), []

    def run(job):
        try:
            start.wait()
            job()
        except Exception as error:  # a deadlock would land here, or in the answer's log
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


def test_it_the_person_as_a_chat_races_the_answer_without_a_deadlock(owner):
    actions.do_set_limits(HIGH)
    pairs = [
        (make_chat(owner, f"a-{i}", peers=True), make_chat(owner, f"b-{i}", peers=True))
        for i in range(PAIRS * ROUNDS)
    ]
    reachable(*[chat for pair in pairs for chat in pair])
    turns = finished_turns(pairs)
    assert len(turns) == PAIRS * ROUNDS
    log = Collect()
    logging.getLogger("peers.actions.answers").addHandler(log)
    try:
        errors = []
        for round_ in range(ROUNDS):
            chunk = pairs[round_ * PAIRS : (round_ + 1) * PAIRS]
            jobs = []
            for a, b in chunk:
                jobs.append(
                    lambda a=a, b=b: actions.check_send_as_person(
                        owner, from_chat=a.pk, to=b.pk, text="as a, to b"
                    )
                )
                jobs.append(lambda b=b: actions.answer_from_final_text(turns[b.pk]))
            errors += race(jobs)
    finally:
        logging.getLogger("peers.actions.answers").removeHandler(log)

    assert errors == []
    assert [r.getMessage() for r in log.records] == []  # no retry was needed
    questions = PeerMessage.objects.filter(text="which port?")
    assert questions.count() == PAIRS * ROUNDS
    assert not questions.filter(answer__isnull=True).exists()
    assert not questions.exclude(answer_refused="").exists()
    assert PeerMessage.objects.filter(text="as a, to b").count() == PAIRS * ROUNDS
