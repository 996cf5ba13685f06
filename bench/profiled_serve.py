"""`python -m bench.profiled_serve PORT OUT [serve options]`: `manage.py serve` with
the worker-thread part of every send (check, write, commit, publish; the
authentication before it is timed apart) profiled by pyinstrument and its SQL
timed. Sends come one at a time (one connection), one profiler per send in the
thread that runs it; the sessions are combined. Every request, REST's send and
MCP's alike, is also counted by face (bench/request_counters.py: thread trips,
threads started, statements, time in the server). Writes OUT (the call tree as
text) and OUT.json (timers and counters) when stopped.

pyinstrument is a bench-only tool: `.venv/bin/pip install pyinstrument`; without it
(or with BENCH_TIMING_ONLY=1) the timers and counters are kept and no tree is drawn."""

import json
import os
import sys
import time
from pathlib import Path

import django


def main() -> None:
    port, out, *serve_options = sys.argv[1:]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    from django.core.management import call_command

    from bench import request_counters

    totals = {"sends": 0, "seconds": 0.0, "queries": 0, "sql_seconds": 0.0}
    sessions = install_instruments(totals)
    try:
        call_command("serve", "--port", port, *serve_options)
    finally:
        totals["faces"] = request_counters.per_request()
        Path(f"{out}.json").write_text(json.dumps(totals))
        if sessions:
            Path(out).write_text(render(sessions))


def install_instruments(totals: dict) -> list:
    """The bench's own instruments, where each caller looks its names up when it calls:
    the send timed (and profiled, with pyinstrument), its parts, and the requests
    counted. Returns the list the profiles of the sends go into."""
    from django.db import connection

    from bench import request_counters
    from crosstalk import asgi
    from peers import waiting

    profiling = os.environ.get("BENCH_TIMING_ONLY") != "1" and has_pyinstrument()
    sessions = []
    send_now = waiting.send_now

    def timed_query(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            totals["queries"] += 1
            totals["sql_seconds"] += time.perf_counter() - started

    def profiled(sender, **send):
        profiler = start_profiler() if profiling else None
        started = time.perf_counter()
        try:
            with connection.execute_wrapper(timed_query):
                return send_now(sender, **send)
        finally:
            totals["sends"] += 1
            totals["seconds"] += time.perf_counter() - started
            if profiler:
                sessions.append(profiler.stop())

    waiting.send_now = profiled
    for module, name in PARTS:
        time_part(totals, module, name)
    request_counters.install()
    asgi.application = request_counters.CountedApplication(asgi.application)
    return sessions


# Parts of a send timed on their own (wall time, no profiler), where the caller finds them.
PARTS = [
    ("chats.api", "caller_for_secret"),  # its own trip to a thread, before the send's
    ("peers.actions.send", "lock_for_send"),
    ("peers.actions.send", "running_turn"),
    ("peers.actions.send", "check_limits"),
    ("peers.actions.send", "do_send_message"),
    ("kernel.events", "group_send"),
]


def time_part(totals: dict, module_name: str, name: str) -> None:
    import importlib

    module = importlib.import_module(module_name)
    original = getattr(module, name)
    key = f"part {name}"
    totals[key] = 0.0

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[key] += time.perf_counter() - started

    setattr(module, name, timed)


def has_pyinstrument() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyinstrument") is not None


def start_profiler():
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001, async_mode="disabled")
    profiler.start()
    return profiler


def render(sessions) -> str:
    from pyinstrument.renderers import ConsoleRenderer
    from pyinstrument.session import Session

    combined = sessions[0]
    for session in sessions[1:]:
        combined = Session.combine(combined, session)
    # Each send ran on its own thread: cut the thread's frames so the sends merge.
    combined.frame_records = list(from_the_send(combined.frame_records))
    renderer = ConsoleRenderer(unicode=True, color=False, show_all=False, time="percent_of_total")
    return renderer.render(combined)


def from_the_send(records):
    for stack, seconds in records:
        first = next((i for i, f in enumerate(stack) if f.startswith("send_now\x00")), None)
        if first is not None:
            yield stack[first:], seconds


if __name__ == "__main__":
    main()
