"""kernel.sqlite: a process's writers wait in line for the write lock, and whatever
ends a transaction (commit, an error inside it, a closed connection) lets the next in."""

import threading

import pytest
from django.db import connection, transaction

from accounts.models import User
from kernel.sqlite.base import writer_lock

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's writers only"),
]


def lock():
    return writer_lock(connection.settings_dict["NAME"])


def test_it_a_transaction_holds_the_lock_until_it_commits():
    assert not lock().locked()
    with transaction.atomic():
        User.objects.create(username="first")
        with transaction.atomic():  # a savepoint: still the same writer
            User.objects.create(username="second")
        assert lock().locked()
    assert not lock().locked()
    assert User.objects.count() == 2


def test_it_an_error_inside_lets_go_and_writes_nothing():
    with pytest.raises(RuntimeError), transaction.atomic():
        User.objects.create(username="doomed")
        raise RuntimeError("halfway")

    assert not lock().locked()
    assert not User.objects.filter(username="doomed").exists()


def test_it_a_second_thread_writes_once_the_first_has_committed():
    inside, done = threading.Event(), []

    def second() -> None:
        inside.wait(5)
        with transaction.atomic():
            done.append(User.objects.filter(username="first").exists())
            User.objects.create(username="second")
        connection.close()

    thread = threading.Thread(target=second)
    thread.start()
    with transaction.atomic():
        User.objects.create(username="first")
        inside.set()
        thread.join(0.3)
        assert thread.is_alive(), "the second writer went in while the first wrote"
    thread.join(10)

    assert done == [True]  # it saw the first writer's row: it began after the commit
    assert not lock().locked()


def test_it_a_write_outside_a_transaction_waits_in_line_not_in_sqlites_busy_handler():
    """A save() with no atomic block around it (an UPDATE on its own) waits for the lock
    too. Its connection gives SQLite's busy handler no time at all, so had it gone
    to the database while the first writer held it, it would fail with "locked"."""
    user = User.objects.create(username="before")
    errors, done = [], threading.Event()

    def second() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA busy_timeout = 0")
            User.objects.filter(pk=user.pk).update(username="after")
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)
        finally:
            connection.close()
            done.set()

    thread = threading.Thread(target=second)
    with transaction.atomic():
        User.objects.create(username="holding")
        thread.start()
        assert not done.wait(0.3), "the lone write went in while a transaction wrote"
    thread.join(10)

    assert errors == []
    assert User.objects.get(pk=user.pk).username == "after"
    assert not lock().locked()


def test_it_a_connection_closed_inside_a_transaction_lets_go_and_keeps_nothing():
    with transaction.atomic():
        User.objects.create(username="cut")
        connection.close()  # as a connection lost halfway would be
        assert not lock().locked()

    assert not User.objects.filter(username="cut").exists()
