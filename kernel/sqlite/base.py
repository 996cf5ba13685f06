"""SQLite whose writers in one process wait in line, not in SQLite's busy handler.

Every transaction begins with BEGIN IMMEDIATE, which takes the database's one write lock
(so the limit checks and the insert they guard are serialized). When a second thread of
the process wants it meanwhile, SQLite's busy handler makes that thread retry on a sleep
schedule of up to 100 ms a try: under load a write sleeps on long after the lock is free
(hooks delivering messages beside sends: a p99 of ~585 ms, docs/benchmarks.md). A lock
per process and database, taken just before BEGIN and let go at COMMIT or ROLLBACK,
hands the database to the next writer the moment it is free. A write outside any
transaction (a save() with no atomic block around it) is a transaction of its own and
waits in the same line. Writers in other processes (`manage.py run_turns`) still meet
SQLite's own lock and its busy handler."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError

_writers: dict[str, threading.Lock] = {}
_writers_guard = threading.Lock()


def writer_lock(name) -> threading.Lock:
    """The process's lock for writing to this database file."""
    with _writers_guard:
        return _writers.setdefault(str(name), threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    # The lock this connection took at BEGIN, if it holds one: the very lock it let go
    # of, even if NAME changed meanwhile (the test database's is set after connecting).
    writer: threading.Lock | None = None

    def acquire_writer(self) -> threading.Lock:
        # As long as SQLite's own busy timeout, and the same error when it runs out.
        wait = self.settings_dict["OPTIONS"].get("timeout", 5)
        lock = writer_lock(self.settings_dict["NAME"])
        if not lock.acquire(timeout=wait):
            raise OperationalError("database is locked")
        return lock

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=WriterCursor)
        cursor.db = self
        return cursor

    def _start_transaction_under_autocommit(self) -> None:
        self.writer = self.acquire_writer()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self.release_writer()
            raise

    # Whatever ends the transaction lets the next writer in, even when it fails.
    def _commit(self) -> None:
        self.ending(super()._commit)

    def _rollback(self) -> None:
        self.ending(super()._rollback)

    def _close(self) -> None:
        self.ending(super()._close)

    def ending(self, end: Callable[[], None]) -> None:
        try:
            end()
        finally:
            self.release_writer()

    def release_writer(self) -> None:
        lock, self.writer = self.writer, None
        if lock is not None:
            lock.release()


class WriterCursor(base.SQLiteCursorWrapper):
    """Outside a transaction, a statement that may write holds the process's lock while
    it runs; reads, and everything inside a transaction (whose BEGIN took the lock), go
    straight through."""

    db: DatabaseWrapper

    def execute(self, query: str, params: Sequence | Mapping | None = None):
        with self.in_line(query):
            return super().execute(query, params)

    def executemany(self, query: str, param_list):
        with self.in_line(query):
            return super().executemany(query, param_list)

    @contextlib.contextmanager
    def in_line(self, query: str) -> Iterator[None]:
        if not self.writes_alone(query):
            yield
            return
        lock = self.db.acquire_writer()
        try:
            yield
        finally:
            lock.release()

    def writes_alone(self, query: str) -> bool:
        if self.db.writer is not None or self.connection.in_transaction:
            return False  # the transaction's BEGIN holds the lock (or is taking it)
        return not query.lstrip()[:6].upper().startswith(("SELECT", "PRAGMA"))
