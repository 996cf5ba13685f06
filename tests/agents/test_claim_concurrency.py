"""Workers racing for requested turns: each turn goes to exactly one of them, and a
chat runs one turn at a time. Meaningful on PostgreSQL (row locks, skip_locked);
on SQLite every transaction takes the write lock, so it passes there by design."""

import threading

import pytest
from django.db import connection

from chats.actions import claim_next_turn, do_mark_turn_done, do_prompt
from chats.models import Turn
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)

WORKERS = 4


def claim_in_threads() -> list[Turn]:
    """WORKERS threads claim until none is left for them; every claim, in order."""
    barrier = threading.Barrier(WORKERS)
    claimed: list[Turn] = []
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            barrier.wait(timeout=10)
            while (turn := claim_next_turn(name)) is not None:
                claimed.append(turn)
        except BaseException as error:  # reported by the test thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(f"worker-{n}",)) for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return claimed


def test_it_hands_each_of_30_turns_to_exactly_one_worker(owner):
    chats = [make_chat(owner, f"chat-{n}") for n in range(15)]
    for chat in chats:
        do_prompt(chat, text="first")
        do_prompt(chat, text="second")

    first_round = claim_in_threads()

    # One turn per chat: the second waits behind the first.
    assert sorted(turn.chat_id for turn in first_round) == sorted(chat.pk for chat in chats)
    assert {turn.prompt for turn in first_round} == {"first"}
    assert claim_next_turn("sweep") is None
    for turn in first_round:
        assert do_mark_turn_done(turn, final_text="done")

    second_round = claim_in_threads()

    assert {turn.prompt for turn in second_round} == {"second"}
    claimed_ids = [turn.pk for turn in first_round + second_round]
    assert len(claimed_ids) == len(set(claimed_ids)) == 30
    assert set(claimed_ids) == set(Turn.objects.values_list("pk", flat=True))
    assert Turn.objects.filter(state=Turn.State.RUNNING).count() == 15
