"""Requests racing on PostgreSQL: the origin's row lock keeps each delivery to one chat
and the hourly count exact."""

import threading
import uuid

import pytest
from django.db import connection, connections
from django.test import Client

from chats.models import Turn
from origins.models import OriginDelivery
from tests.origins.conftest import make_origin, post_hook, signed

pytestmark = pytest.mark.django_db(transaction=True)


def race(count: int, send) -> list[int]:
    statuses: list[int] = []
    start = threading.Barrier(count)

    def one(index: int) -> None:
        try:
            start.wait()
            statuses.append(send(index))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return sorted(statuses)


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks race only on PostgreSQL (SQLite takes one writer at a time)")


def test_it_one_delivery_sent_at_once_from_many_threads_starts_one_turn(owner):
    origin = make_origin(owner)
    body, headers = signed(origin, {"text": "x", "thread": "t"}, delivery="same")
    statuses = race(6, lambda _: post_hook(Client(), origin, body, headers).status_code)
    assert statuses == [202, 409, 409, 409, 409, 409]
    assert Turn.objects.count() == 1 and OriginDelivery.objects.count() == 1


def test_it_the_hourly_limit_holds_under_a_burst(owner):
    origin = make_origin(owner, requests_per_hour=3)

    def send(index: int) -> int:
        payload = {"text": f"x{index}", "thread": f"t{index}"}
        return post_hook(
            Client(), origin, *signed(origin, payload, delivery=uuid.uuid4().hex)
        ).status_code

    statuses = race(8, send)
    assert statuses == [202] * 3 + [429] * 5
    assert Turn.objects.count() == 3
