"""Limits hold when many senders race, in several processes at once."""

import multiprocessing

import pytest
from django.db import connection
from django.db.models import Sum

from peers.actions import do_set_limits
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers import race
from tests.peers.conftest import reachable

pytestmark = pytest.mark.django_db(transaction=True)


def race_in_processes(jobs: list[tuple[str, str]], processes: int = 2) -> list[str]:
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    db_name = str(connection.settings_dict["NAME"])
    share = len(jobs) // processes
    workers = [
        context.Process(
            target=race.send_many, args=(db_name, jobs[i * share : (i + 1) * share], results)
        )
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in range(share * processes)]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    return outcomes


def test_it_never_lets_one_chat_send_past_its_hourly_limit(owner):
    do_set_limits({"chat_per_hour": 7, "pair_per_window": 1000, "pair_without_you": 1000})
    sender = make_chat(owner, "sender", peers=True)
    others = [make_chat(owner, f"to-{i}", peers=True) for i in range(5)]
    reachable(sender, *others)
    jobs = [(sender.pk, others[i % 5].pk) for i in range(50)]

    outcomes = race_in_processes(jobs)

    assert outcomes.count("sent") == 7
    assert set(outcomes) == {"sent", "limit_chat_hour"}
    assert PeerMessage.objects.filter(from_chat=sender).count() == 7
    # Repeated refusals of one chat are counted into one row a minute.
    refused = Activity.objects.filter(detail="limit_chat_hour")
    assert refused.aggregate(total=Sum("count"))["total"] == 43


def test_it_never_wakes_more_idle_chats_than_the_account_allows(owner):
    do_set_limits({"wakes_per_hour": 6})
    senders = [make_chat(owner, f"s-{i}", peers=True) for i in range(50)]
    idle = [make_chat(owner, f"idle-{i}", peers=True) for i in range(50)]
    reachable(*senders, *idle)
    jobs = [(senders[i].pk, idle[i].pk) for i in range(50)]

    outcomes = race_in_processes(jobs)

    assert outcomes.count("sent") == 6
    assert PeerMessage.objects.filter(woke=True).count() == 6


def test_it_never_lets_a_pair_pass_its_window(owner):
    do_set_limits({"pair_per_window": 9, "chat_per_hour": 1000, "pair_without_you": 1000})
    first = make_chat(owner, "first", peers=True)
    second = make_chat(owner, "second", peers=True)
    reachable(first, second)
    jobs = [(first.pk, second.pk) if i % 2 else (second.pk, first.pk) for i in range(50)]

    outcomes = race_in_processes(jobs)

    assert outcomes.count("sent") == 9
    assert PeerMessage.objects.count() == 9
