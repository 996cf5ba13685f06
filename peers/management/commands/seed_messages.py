"""Fill the database with a week of realistic peer messages, for the admin page's
metrics and its benchmark: `python manage.py seed_messages --count 100000`.

A development tool: the rows are written with bulk_create as they would stand after
their deliveries, not sent through peers.actions (which would take hours and needs
running agents); the limits' per-minute counts of the last day are added to match.
Its accounts are named `seed-N`; `--reset` removes them first."""

import math
import random
from datetime import timedelta

from django.core.management.base import BaseCommand
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from chats.actions import do_create_chat
from peers.actions.counters import add_counts
from peers.limits import pair_key
from peers.models import Activity, PeerMessage

PREFIX = "seed-"
BATCH = 5000
WEEK = 7 * 24 * 3600
CHAT_NAMES = ["checkout", "payments-api", "search", "docs", "billing-worker", "mobile", "infra"]
AGENTS = ["claude-code", "codex", "gemini", "command", "demo"]
# (weight, state, reason); delivered messages get a path below.
OUTCOMES = [
    (84, "delivered", ""),
    (2, "pending", "next_step"),
    (1, "queued", "waking"),
    (1, "queued", "behind_turn"),
    (1, "queued", "with_background_work"),
    (2, "queued", "held_until_you_write"),
    (3, "cancelled", "removed"),
    (1, "cancelled", ""),
    (2, "not_delivered", "agent_unavailable"),
    (1.5, "not_delivered", "turn_failed"),
    (1, "not_delivered", "worker_stopped"),
    (0.5, "not_delivered", "other"),
]
# (weight, path, median seconds to deliver, spread of the log-normal)
PATHS = [
    (45, "between_steps", 6.0, 0.9),
    (12, "as_finished", 14.0, 0.8),
    (25, "turn_prompt", 2.5, 1.0),
    (12, "waiting_call", 9.0, 0.6),
    (6, "inbox", 35.0, 1.1),
    (4, "tool_result", 20.0, 1.0),
]
REFUSALS = [
    (40, "limit_pair_window"),
    (20, "limit_chat_hour"),
    (12, "limit_pair_without_you"),
    (10, "not_reachable"),
    (6, "limit_wakes"),
    (5, "no_chat"),
    (4, "limit_chain"),
    (3, "message_too_long"),
]


# Message text for search: common words often, a long tail of rare ones (Zipf-like), as in
# real chats; a handful of tickets and ports make rare, exact terms.
WORDS = (
    "the a to is of and in it for on that this with we you be not can port api test build "
    "fix error cart order payment user field schema migration deploy branch review merge "
    "config timeout retry queue worker token session login page route handler database "
    "index query cache redis postgres sqlite docker image release version bump changelog "
    "lint format type check failing passing flaky rename total amount currency invoice "
    "refund webhook endpoint header status response request latency memory leak crash "
    "stack trace log metric alert dashboard feature flag rollout rollback hotfix patch "
    "please could would should done ready blocked waiting answer question thanks ok"
)
VOCABULARY = WORDS.split()
WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCABULARY))]


def message_text(rng: random.Random) -> str:
    words = rng.choices(VOCABULARY, weights=WEIGHTS, k=rng.randint(5, 40))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"ticket{rng.randint(1, 20000)}")
    return " ".join(words).capitalize() + "."


def pick(rng: random.Random, table: list[tuple]) -> tuple:
    return rng.choices(table, weights=[row[0] for row in table])[0]


class Command(BaseCommand):
    help = "Seed a week of peer messages across several accounts (bulk, for metrics benches)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--count", type=int, default=100_000)
        parser.add_argument("--accounts", type=int, default=12)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--reset", action="store_true", help="remove earlier seed accounts")

    def handle(self, *args, count: int, accounts: int, seed: int, reset: bool, **options):
        rng = random.Random(seed)  # noqa: S311 (repeatable test data, not secrets)
        if reset:
            User.objects.filter(username__startswith=PREFIX).delete()
        chats = self.make_accounts(accounts, rng)
        now = timezone.now()
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            with transaction.atomic():
                batch = [message(rng, chats, now) for _ in range(size)]
                PeerMessage.objects.bulk_create(batch, batch_size=1000)
                add_counts(batch, now=now)  # what the limits count from
                Activity.objects.bulk_create(
                    [refusal(rng, chats, now) for _ in range(size // 20)], batch_size=1000
                )
        analyze()
        total = sum(len(group) for group in chats)
        self.stdout.write(f"Seeded {count} messages in {total} chats of {accounts} accounts.")

    def make_accounts(self, accounts: int, rng: random.Random) -> list[list]:
        """Per account, its chats; the first chats of an account talk the most."""
        taken = User.objects.filter(username__startswith=PREFIX).count()
        groups = []
        for i in range(taken, taken + accounts):
            user = User.objects.create_user(f"{PREFIX}{i + 1}")
            names = CHAT_NAMES[: rng.randint(4, len(CHAT_NAMES))]
            groups.append(
                [
                    do_create_chat(user, name=name, agent=rng.choice(AGENTS), peers=True)[0]
                    for name in names
                ]
            )
        return groups


def analyze() -> None:
    """PostgreSQL: what autovacuum does soon after a bulk load (planner statistics, and
    the visibility map that index-only scans need), done now so a bench measures that."""
    if connection.vendor != "postgresql":
        return
    # VACUUM cannot run inside a transaction (as under a test); ANALYZE alone can.
    command = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
    with connection.cursor() as cursor:
        for model in (PeerMessage, Activity):
            cursor.execute(f"{command} {connection.ops.quote_name(model._meta.db_table)}")


def sent_at(rng: random.Random, now):
    """Within the last week, busier in working hours (UTC) than at night."""
    while True:
        ago = rng.uniform(0, WEEK)
        moment = now - timedelta(seconds=ago)
        busy = 0.55 + 0.45 * math.sin((moment.hour - 7) / 24 * 2 * math.pi)
        if rng.random() < busy:
            return moment


def message(rng: random.Random, groups: list[list], now) -> PeerMessage:
    chats = rng.choice(groups)
    weights = [1 / (i + 1) for i in range(len(chats))]
    sender, recipient = rng.choices(chats, weights=weights, k=2)
    while recipient.pk == sender.pk:
        recipient = rng.choice(chats)
    from_person = rng.random() < 0.08
    _, state, reason = pick(rng, OUTCOMES)
    created = sent_at(rng, now)
    row = PeerMessage(
        user_id=sender.user_id,
        from_chat=None if from_person else sender,
        to_chat=recipient,
        sent_by="person" if from_person else "agent",
        text=message_text(rng),
        chain=f"chain_seed{rng.getrandbits(40):x}",
        hop=rng.randint(1, 6),
        pair="" if from_person else pair_key(sender.pk, recipient.pk),
        state=state,
        reason=reason,
        created_at=created,
        state_changed_at=created,
    )
    row.exchange = row.pk
    if state == "delivered":
        _, row.path, median, spread = pick(rng, PATHS)
        seconds = min(median * math.exp(rng.gauss(0, spread)), 3600)
        row.delivered_at = min(created + timedelta(seconds=seconds), now)
        row.state_changed_at = row.delivered_at
        row.woke = row.path == "turn_prompt" and rng.random() < 0.45
    row.woke = row.woke or reason == "waking"
    return row


def refusal(rng: random.Random, groups: list[list], now) -> Activity:
    chat = rng.choice(rng.choice(groups))
    _, code = pick(rng, REFUSALS)
    return Activity(
        user_id=chat.user_id,
        chat=chat,
        action=Activity.Action.REFUSED,
        detail=code,
        created_at=sent_at(rng, now),
    )
