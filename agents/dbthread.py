"""How the asyncio runner reaches the (synchronous) ORM."""

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async


def in_db_thread[**P, R](fn: Callable[P, R]) -> Callable[P, Any]:
    """Run fn in the one thread-sensitive thread, awaitable.

    Why one thread (thread_sensitive=True) and not a pool: Django keeps one
    connection per thread and only a request's end closes it, so pool threads
    would each keep a connection for good (PostgreSQL's pool holds 20), and
    SQLite takes one writer at a time anyway. Every call here is a short query
    or transaction; turns overlap in their steps and waits, not in SQL."""
    return sync_to_async(fn, thread_sensitive=True)
