"""Time the full-text search of messages at a realistic size, on either backend.

    .venv/bin/python -m bench.search --count 100000            # SQLite, var/bench-admin.sqlite3
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crosstalk_bench_admin \\
        .venv/bin/python -m bench.search --count 100000         # PostgreSQL (created if missing)

Seeds like bench.admin (`seed_messages --reset`; --no-seed keeps what is there), then, as
the busiest seeded account, times `GET /api/v1/messages?q=` and the Messages page
`/messages/?q=` through Django's full stack in this process: a rare word, a common one,
two words, a prefix, a search combined with chat and state, and a later page. Target:
p95 ≤ 100 ms. Each line also gives this process's CPU time (the time that does not
depend on how busy the machine is). --quick: 300 messages, each search once."""

import argparse
import os
import statistics
import time

from bench.admin import setup
from bench.send import QUICK_HELP

TARGET_MS = 100
QUERIES = ["ticket4242", "port", "payment timeout", "migr", "invoice refund webhook"]


def busiest_account():
    from django.db.models import Count

    from accounts.models import User

    return (
        User.objects.filter(username__startswith="seed-")
        .annotate(n=Count("chats"))
        .order_by("-n", "username")
        .first()
    )


def measure(client, url: str, repeat: int, headers: dict | None = None) -> list[tuple]:
    """(wall ms, this process's CPU ms) per request. On a machine shared with other work
    the wall time waits for a core; the CPU time does not (on SQLite it includes the
    queries, which run in this process; PostgreSQL's share is only in the wall time)."""
    for _ in range(2):  # warm: templates compiled, connection open
        client.get(url, headers=headers or {})
    times = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        response = client.get(url, headers=headers or {})
        times.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
        if response.status_code != 200:
            raise SystemExit(f"{url}: {response.status_code}")
    return times


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def report(label: str, times: list[tuple]) -> str:
    wall, cpu = [t[0] for t in times], [t[1] for t in times]
    verdict = "ok" if p95(wall) <= TARGET_MS else "over"
    return (
        f"{label:<44} median {statistics.median(wall):6.1f} ms  p95 {p95(wall):6.1f} ms  "
        f"(CPU median {statistics.median(cpu):5.1f}, p95 {p95(cpu):5.1f})  {verdict}"
    )


def print_hits(user) -> None:
    from peers.inputs import MessageSearch
    from peers.selectors import find_messages

    for word in ("ticket4242", "port", "migr"):
        hits = find_messages(user, MessageSearch(query=word)).count()
        print(f"  {word!r}: {hits} hits in {user}")


def searches(user) -> list[str]:
    """The query strings timed: QUERIES, one narrowed to a chat and a state, a later page."""
    from chats.selectors import account_chats

    chat = account_chats(user).order_by("name").first()
    urls = [f"?q={q.replace(' ', '+')}" for q in QUERIES]
    return [*urls, f"?q=port&chat={chat.pk}&state=delivered", "?q=port&page=3"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-seed", action="store_true")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.count, args.repeat = 300, 1
    setup(args.count, seed=not args.no_seed)
    from django.db import connection
    from django.test import Client

    from accounts.actions import do_create_api_token
    from peers.models import PeerMessage

    user = busiest_account()
    mine = PeerMessage.objects.filter(user=user).count()
    total = PeerMessage.objects.count()
    print(f"{connection.vendor}: {total} messages, {mine} in {user}; load {os.getloadavg()}")
    page, api = Client(), Client()
    page.force_login(user)
    token = do_create_api_token(user, name="bench")[1]
    bearer = {"Authorization": f"Bearer {token}"}
    print_hits(user)
    for query in searches(user):
        print(
            report(
                f"API {query}",
                measure(api, f"/api/v1/messages{query}", args.repeat, bearer),
            )
        )
        print(report(f"page {query}", measure(page, f"/messages/{query}", args.repeat)))
        print(f"  load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
