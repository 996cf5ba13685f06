"""Time /internal/admin/peers and its metrics.json at a realistic size.

    .venv/bin/python -m bench.admin --count 100000            # SQLite, var/bench-admin.sqlite3
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crosstalk_bench_admin \\
        .venv/bin/python -m bench.admin --count 100000         # PostgreSQL (created if missing)

Seeds the messages with `manage.py seed_messages --reset` (skip with --no-seed when
the database already holds them), then requests each URL through Django's full stack
in this process (middleware, session, view, queries, template; no HTTP socket), as a
staff user, and prints the server time per request: median, p95 and best of --repeat.
--quick: 300 messages, each URL once (a smoke run of seconds)."""

import argparse
import os
import statistics
import time
from urllib.parse import urlsplit

from bench.send import QUICK_HELP, VAR

TARGET_MS = 200
URLS = [
    *(f"/internal/admin/peers?window={w}" for w in ("hour", "day", "week")),
    *(f"/internal/admin/peers/metrics.json?window={w}" for w in ("hour", "day", "week")),
]


def ensure_postgres_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    maintenance = parts._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not found:
            conn.execute(f'CREATE DATABASE "{name}"')


def setup(count: int, seed: bool) -> None:
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{VAR / 'bench-admin.sqlite3'}")
    os.environ["DEBUG"] = "0"  # no query log, as in production
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    if os.environ["DATABASE_URL"].startswith("postgres"):
        ensure_postgres_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if seed:
        started = time.perf_counter()
        call_command("seed_messages", count=count, reset=True)
        print(f"seeded {count} messages in {time.perf_counter() - started:.1f} s")


def staff_client():
    from django.test import Client

    from accounts.models import User

    user, _ = User.objects.get_or_create(username="bench-admin", defaults={"is_staff": True})
    client = Client()
    client.force_login(user)
    return client


def measure(client, url: str, repeat: int, headers: dict | None = None) -> list[float]:
    for _ in range(2):  # warm: templates compiled, connection open
        client.get(url, headers=headers or {})
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url, headers=headers or {})
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{url}: {response.status_code}")
    return times


def report(label: str, times: list[float]) -> str:
    median = statistics.median(times)
    p95 = sorted(times)[max(0, round(0.95 * len(times)) - 1)]
    verdict = "ok" if median <= TARGET_MS else "over"
    return (
        f"{label:<52} median {median:7.1f} ms  p95 {p95:7.1f} ms  "
        f"best {min(times):7.1f} ms  {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--no-seed", action="store_true")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.count, args.repeat = 300, 1
    setup(args.count, seed=not args.no_seed)
    from django.db import connection

    from peers.models import PeerMessage

    print(f"{connection.vendor}: {PeerMessage.objects.count()} messages; load {os.getloadavg()}")
    client = staff_client()
    for url in URLS:
        print(report(url, measure(client, url, args.repeat)))
    partial = "/internal/admin/peers?window=week (htmx partial)"
    week = "/internal/admin/peers?window=week"
    print(report(partial, measure(client, week, args.repeat, headers={"HX-Request": "true"})))


if __name__ == "__main__":
    main()
