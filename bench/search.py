"""Time the full-text search of messages at a realistic size, on either backend.

    .venv/bin/python -m bench.search --count 100000            # SQLite, var/bench-admin.sqlite3
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crosstalk_bench_admin \\
        .venv/bin/python -m bench.search --count 100000         # PostgreSQL (created if missing)

Seeds like bench.admin (`seed_messages --reset`; --no-seed keeps what is there), then, as
the busiest seeded account, times `GET /api/v1/messages?q=` and the Messages page
`/messages/?q=` through Django's full stack in this process: a rare word, a common one,
two words, a prefix, and a search combined with chat and state. Target: p95 ≤ 100 ms."""

import argparse
import os
import statistics

from bench.admin import measure, setup

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


def report(label: str, times: list[float]) -> str:
    median = statistics.median(times)
    p95 = sorted(times)[max(0, round(0.95 * len(times)) - 1)]
    verdict = "ok" if p95 <= TARGET_MS else "over"
    return f"{label:<58} median {median:6.1f} ms  p95 {p95:6.1f} ms  {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-seed", action="store_true")
    args = parser.parse_args()
    setup(args.count, seed=not args.no_seed)
    from django.db import connection
    from django.test import Client

    from accounts.actions import do_create_api_token
    from chats.selectors import account_chats
    from peers.models import PeerMessage

    user = busiest_account()
    mine = PeerMessage.objects.filter(user=user).count()
    total = PeerMessage.objects.count()
    print(f"{connection.vendor}: {total} messages, {mine} in {user}; load {os.getloadavg()}")
    page, api = Client(), Client()
    page.force_login(user)
    token = do_create_api_token(user, name="bench")[1]
    bearer = {"Authorization": f"Bearer {token}"}
    chat = account_chats(user).first()
    urls = [f"?q={q.replace(' ', '+')}" for q in QUERIES]
    urls.append(f"?q=port&chat={chat.pk}&state=delivered")
    for query in urls:
        print(
            report(
                f"/api/v1/messages{query}",
                measure(api, f"/api/v1/messages{query}", args.repeat, bearer),
            )
        )
        print(report(f"/messages/{query}", measure(page, f"/messages/{query}", args.repeat)))


if __name__ == "__main__":
    main()
