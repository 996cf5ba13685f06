"""Per-face counters for bench/profiled_serve.py: for each request to the REST send
(`rest`), the MCP endpoint (`mcp`) or anything else (`other`), how many trips to a
worker thread it made (asgiref's sync_to_async), how many threads were started for it,
how many SQL statements it ran, and its wall time in the server.

Load-independent where the timings are not: a trip or a statement more is a fact about
the code, whatever else the machine is doing. The face is a context variable set where
the request enters the ASGI application; asgiref carries it into the worker threads."""

import contextvars
import os
import re
import threading
import time
from collections import defaultdict

from asgiref import sync
from django.db.backends import utils

FACES = {"/api/v1/agent/messages": "rest", "/mcp": "mcp"}
face = contextvars.ContextVar("bench_face", default=None)
totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))


def count(name: str, amount: float = 1) -> None:
    current = face.get()
    if current is not None:
        totals[current][name] += amount


class CountedApplication:
    """The server's ASGI application, each http request counted under its face."""

    def __init__(self, app) -> None:
        self.app = app

    def __getattr__(self, name):  # start(), as crosstalk.services.ServerProcess has
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = face.set(FACES.get(scope["path"].rstrip("/"), "other"))
        started = time.perf_counter()
        try:
            return await self.app(scope, receive, send)
        finally:
            count("requests")
            count("seconds", time.perf_counter() - started)
            face.reset(token)


def install() -> None:
    """Count thread trips, thread starts and statements from now on, in this process."""
    trip = sync.SyncToAsync.__call__
    by_name = os.environ.get("BENCH_TRIPS_BY_NAME") == "1"

    async def counted_trip(self, *args, **kwargs):
        count("thread trips")
        if by_name:  # which function each trip ran, to find where they come from
            count(f"trip {getattr(self.func, '__qualname__', repr(self.func))}")
        return await trip(self, *args, **kwargs)

    sync.SyncToAsync.__call__ = counted_trip

    start = threading.Thread.start

    def counted_start(self):
        count("threads started")
        if by_name:
            count(f"thread {re.sub(r'\d+', 'N', self.name)}")
        return start(self)

    threading.Thread.start = counted_start

    execute = utils.CursorWrapper._execute_with_wrappers

    def counted_execute(self, sql, params, many, executor):
        count("statements")
        return execute(self, sql, params, many, executor)

    utils.CursorWrapper._execute_with_wrappers = counted_execute


def per_request() -> dict[str, dict[str, float]]:
    """Each face's counters divided by its requests (seconds as ms)."""
    result = {}
    for name, counters in totals.items():
        requests = counters.get("requests") or 1
        row = {key: value / requests for key, value in counters.items() if key != "requests"}
        row["ms in the server"] = row.pop("seconds", 0) * 1000
        result[name] = {"requests": counters.get("requests", 0), **row}
    return result
