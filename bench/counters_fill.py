"""Does a send's limits check cost more as the hour fills? In-process, without HTTP:
`python -m bench.counters_fill [N]` (default 10,000) on whatever DATABASE_URL says;
`--quick` makes 20 sends (a smoke run of seconds).

It makes the bench account (bench.setup: a sender and a stopped recipient), raises
the limits to 10,000 with a 1-minute pair window (as `bench.send --fill`), sends N
messages through check_send_message, and takes the counters statement of the 1st and
the Nth send: its best time of 30 runs and, on PostgreSQL, the buffers it touched
(EXPLAIN ANALYZE BUFFERS), which the machine's load does not move. The limits are put
back and the account dropped afterwards. Not alongside bench.send on the same database
(both use the bench account and the limits)."""

import argparse
import json
import os
import statistics
import time

import django

from bench.send import QUICK_HELP

RUNS = 30


def best_ms(sql: str) -> float:
    from django.db import connection

    runs = []
    with connection.cursor() as cursor:
        for _ in range(RUNS):
            started = time.perf_counter()
            cursor.execute(sql)
            cursor.fetchall()
            runs.append(time.perf_counter() - started)
    return min(runs) * 1000


def buffers(sql: str) -> int | None:
    from django.db import connection, transaction

    if connection.vendor != "postgresql":
        return None
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = (plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]
    return plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)


def send_all(n: int, sender, recipient_id: str) -> tuple[list[float], dict[int, tuple]]:
    """Each send's time, and at the 1st and the nth the counters statement's best time
    and buffers (taken then: the next sends change what it reads)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from peers.actions import check_send_message

    times, statements = [], {}
    for i in range(1, n + 1):
        connection.queries_log.clear()  # it keeps 9,000 entries: a capture would miss later ones
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            check_send_message(sender, to=recipient_id, text=f"message {i}")
            times.append(time.perf_counter() - started)
        if i in (1, n):
            sql = next(q["sql"] for q in queries.captured_queries if "COUNT(*)" in q["sql"])
            statements[i] = (best_ms(sql), buffers(sql))
    return times, statements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sends", type=int, nargs="?", default=10000)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    n = 20 if args.quick else args.sends
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    from bench.setup import create, drop, raise_limits
    from chats.models import Chat
    from peers.actions import do_set_limits

    saved = raise_limits()  # migrated first
    account = create()
    try:
        sender = Chat.objects.get(pk=account["sender"])
        times, statements = send_all(n, sender, account["recipient"])
    finally:
        do_set_limits(saved)
        drop()
    block = min(1000, n // 2)
    first, last = statistics.mean(times[:block]), statistics.mean(times[-block:])
    print(
        f"sends: first {block} mean {first * 1000:.2f} ms, last {block} mean {last * 1000:.2f} ms"
    )
    for i, (best, touched) in statements.items():
        shown = "" if touched is None else f", {touched} buffers"
        print(f"counters statement at send {i}: best of {RUNS} {best:.3f} ms{shown}")


if __name__ == "__main__":
    main()
