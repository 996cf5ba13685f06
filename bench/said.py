"""Time search over everything said (peers.said) at a realistic size, on either backend.

    .venv/bin/python -m bench.said --count 100000            # SQLite, var/bench-said.sqlite3
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crosstalk_bench_said \\
        .venv/bin/python -m bench.said --count 100000         # PostgreSQL (created if missing)

Seeds --count conversation entries (prompts, answers, both sides of peer messages, a few
notices) over a month in 12 accounts, the first busiest (--no-seed keeps what is there),
ANALYZEs the tables, prints the PostgreSQL plans of a common and a rare word, then, as the busiest
account, times `GET /api/v1/search` and the page `/search/` through Django's full stack in
this process: a rare word, a common one, a stemmed one, two words, each filter, a later
page. Target: p95 ≤ 100 ms. Each line also gives this process's CPU time and the time
spent in the database's statements. --quick: 300 entries, each search once."""

import argparse
import os
import random
import time
from datetime import timedelta

from bench.admin import setup
from bench.search import measure, report
from bench.send import QUICK_HELP, VAR

PREFIX = "said-bench-"
ACCOUNTS = 12
CHATS = 8
BATCH = 5000
# (weight, kind, words from, words to)
KINDS = [(30, "prompt", 5, 40), (40, "answer", 20, 120), (25, "peer", 5, 40), (5, "notice", 3, 8)]


def searches(chat_id: str) -> list[str]:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    week_ago = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 7 * 86400))
    return [
        "q=ticket4242",
        "q=port",
        "q=ports",
        "q=payment+timeout",
        "q=invoice+refund+webhook",
        "q=port&kind=message",
        "q=port&kind=prompt",
        f"q=port&chat={chat_id}",
        f"q=deploy&since={week_ago}&until={today}",
        "q=port&offset=40",
    ]


def seed(count: int, rng: random.Random) -> None:
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from chats.actions import do_create_chat
    from chats.models import Entry

    started = time.perf_counter()
    Entry.objects.filter(chat__user__username__startswith=PREFIX).delete()
    User.objects.filter(username__startswith=PREFIX).delete()
    groups = []
    for i in range(ACCOUNTS):
        user = User.objects.create_user(f"{PREFIX}{i + 1}")
        groups.append([do_create_chat(user, name=f"chat-{n}")[0] for n in range(CHATS)])
    made = Entry._meta.get_field("created_at")
    made.auto_now_add = False  # this bench's entries carry their own times
    step = timedelta(days=30) / count  # a month, oldest first, as they are written
    at = timezone.now() - step * count
    try:
        for start in range(0, count, BATCH):
            with transaction.atomic():
                rows = []
                while len(rows) < min(BATCH, count - start):
                    at += step
                    rows += entries(rng, groups, at)
                Entry.objects.bulk_create(rows[: min(BATCH, count - start)], batch_size=1000)
    finally:
        made.auto_now_add = True
    print(f"seeded {count} entries in {time.perf_counter() - started:.1f} s", flush=True)


def entries(rng: random.Random, groups: list[list], at) -> list:
    """One prompt, answer or notice, or a peer message's two sides (same id and time)."""
    from chats.models import Entry
    from peers.management.commands.seed_messages import message_text

    account = rng.choices(groups, weights=[1 / (i + 1) for i in range(len(groups))])[0]
    chat, other = rng.sample(account, 2)
    _, kind, low, high = rng.choices(KINDS, weights=[k[0] for k in KINDS])[0]
    text = " ".join(message_text(rng) for _ in range(max(1, rng.randint(low, high) // 20)))
    if kind != "peer":
        return [Entry(chat=chat, kind=kind, text=text, created_at=at)]
    message_id = f"m{rng.getrandbits(64):016x}"
    return [
        Entry(chat=chat, kind="peer_out", text=text, message_id=message_id, created_at=at),
        Entry(chat=other, kind="peer_in", text=text, message_id=message_id, created_at=at),
    ]


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("chats_entry", "chats_chat"):
            cursor.execute(f"ANALYZE {table}")  # noqa: S608 (fixed names)


def show_plan(user) -> None:
    """EXPLAIN ANALYZE of the page's query for a common and a rare word (PostgreSQL)."""
    from django.db import connection

    from peers.inputs import SaidSearch
    from peers.said import pg_hits

    if connection.vendor != "postgresql":
        return
    for word in ("port", "ticket4242"):
        hits = pg_hits(user, None, SaidSearch(query=word), [word])[0]
        sql, params = hits.order_by("-id").values("pk")[:20].query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN ANALYZE {sql}", params)
            print("\n".join("  " + row[0] for row in cursor.fetchall()))


class StatementClock:
    """The time this process waits on the database's statements (execute_wrapper): on
    PostgreSQL the server's share, which the CPU column does not hold."""

    def __init__(self) -> None:
        self.total = 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.total += time.perf_counter() - started


def timed(label: str, client, url: str, repeat: int, headers=None) -> str:
    from django.db import connection

    clock = StatementClock()
    with connection.execute_wrapper(clock):
        line = report(label, measure(client, url, repeat, headers))
    return f"{line}  statements {clock.total * 1000 / (repeat + 2):5.1f} ms/request"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-seed", action="store_true")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.count, args.repeat = 300, 1
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{VAR / 'bench-said.sqlite3'}")
    setup(args.count, seed=False)
    from django.db import connection
    from django.test import Client

    from accounts.actions import do_create_api_token
    from accounts.models import User
    from chats.models import Entry

    if not args.no_seed:
        seed(args.count, random.Random(1))  # noqa: S311 (repeatable test data)
    analyze()
    user = User.objects.get(username=f"{PREFIX}1")
    mine = Entry.objects.filter(chat__user=user).count()
    print(
        f"{connection.vendor}: {Entry.objects.count()} entries, {mine} in {user}; "
        f"load {os.getloadavg()}"
    )
    show_plan(user)
    page, api = Client(), Client()
    page.force_login(user)
    bearer = {"Authorization": f"Bearer {do_create_api_token(user, name='bench')[1]}"}
    chat = user.chats.order_by("name").first()
    for query in searches(chat.pk):
        print(timed(f"API {query}", api, f"/api/v1/search?{query}", args.repeat, bearer))
        page_query = query.replace("offset=40", "page=3")
        print(timed(f"page {page_query}", page, f"/search/?{page_query}", args.repeat))
        print(f"  load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
