"""The limits as data: one row admins tune, and the counters a send checks against it."""

from datetime import UTC, datetime, timedelta

from django.db import connection

from chats.models import Chat
from chats.refusals import Refusal
from peers.models import Limits, PeerMessage

NAMES = [
    "reach_hours",
    "chat_per_hour",
    "wakes_per_hour",
    "pair_per_window",
    "pair_window_minutes",
    "pair_without_you",
    "chain_without_you",
    "list_read_per_hour",
    "max_text",
    "max_wait_seconds",
]
BEFORE_ANYTHING = datetime(2000, 1, 1, tzinfo=UTC)
AGENT = PeerMessage.SentBy.AGENT.value

# One indexed scalar subquery per counter, in a single statement: the ORM's
# filtered aggregate read the account's whole history and cost more to build
# than to run (docs/benchmarks.md). Each WHERE matches one of PeerMessage's indexes.
COUNTERS = {
    "chat_hour": "from_chat_id = %s AND created_at >= %s",
    "pair_window": "pair = %s AND created_at >= %s",
    "pair_without_you": "pair = %s AND created_at > %s AND sent_by = %s",
    "wakes": "user_id = %s AND created_at >= %s AND woke = %s",
    "chain": "chain = %s AND sent_by = %s",
}


def current_limits() -> Limits:
    """Read on every use, so an admin's change holds on the next send in every process."""
    limits = Limits.objects.filter(pk=1).first()
    return limits if limits is not None else Limits(pk=1)


def defaults() -> dict[str, int]:
    return {name: Limits._meta.get_field(name).default for name in NAMES}


def pair_key(a: str, b: str) -> str:
    """Both chat ids, sorted: one key (and one index) for a pair, both ways."""
    return "|".join(sorted((a, b)))


def count_recent(
    *,
    user_id: int,
    sender: Chat | None,
    by_agent: bool,
    recipient: Chat,
    chain: str,
    now,
    limits: Limits,
) -> dict[str, int]:
    """Every counter this send is held to, in one query."""
    hour_ago = now - timedelta(hours=1)
    wanted = {"wakes": [user_id, hour_ago, True]}
    if sender is not None:
        pair = pair_key(sender.pk, recipient.pk)
        window = now - timedelta(minutes=limits.pair_window_minutes)
        wanted["chat_hour"] = [sender.pk, hour_ago]
        wanted["pair_window"] = [pair, window]
        if by_agent:
            wrote = [sender.person_wrote_at, recipient.person_wrote_at]
            since = max(filter(None, wrote), default=BEFORE_ANYTHING)
            wanted["pair_without_you"] = [pair, since, AGENT]
    if by_agent:
        wanted["chain"] = [chain, AGENT]
    return run_counters(wanted)


def run_counters(wanted: dict[str, list]) -> dict[str, int]:
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    selects = [f"(SELECT COUNT(*) FROM {table} WHERE {COUNTERS[name]})" for name in wanted]  # noqa: S608
    adapt = connection.ops.adapt_datetimefield_value
    params = [adapt(p) if isinstance(p, datetime) else p for ps in wanted.values() for p in ps]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(selects), params)
        row = cursor.fetchone()
    return dict(zip(wanted, row, strict=True))


def check_limits(
    *,
    user_id: int,
    sender: Chat | None,
    by_agent: bool,
    recipient: Chat,
    chain: str,
    wakes: bool,
    now,
    limits: Limits,
) -> None:
    """SPEC.md's limits, in its order; the caller holds the account lock."""
    counts = count_recent(
        user_id=user_id,
        sender=sender,
        by_agent=by_agent,
        recipient=recipient,
        chain=chain,
        now=now,
        limits=limits,
    )
    for code, over, sentence in refusals(counts, recipient=recipient, wakes=wakes, limits=limits):
        if over:
            raise Refusal(code, sentence)


def refusals(counts: dict, *, recipient: Chat, wakes: bool, limits: Limits):
    name = recipient.name
    yield (
        "limit_chat_hour",
        counts.get("chat_hour", 0) >= limits.chat_per_hour,
        f"This chat already sent {limits.chat_per_hour} messages in the last hour. "
        "Carry on with your own work and try later.",
    )
    yield (
        "limit_pair_window",
        counts.get("pair_window", 0) >= limits.pair_per_window,
        f"{limits.pair_per_window} messages went between you and {name} in the last "
        f"{limits.pair_window_minutes} minutes. Wait before writing again.",
    )
    yield (
        "limit_pair_without_you",
        counts.get("pair_without_you", 0) >= limits.pair_without_you,
        f"You and {name} exchanged {limits.pair_without_you} messages since the person last "
        "wrote. Stop messaging and tell the person what is still open between you.",
    )
    yield (
        "limit_wakes",
        wakes and counts.get("wakes", 0) >= limits.wakes_per_hour,
        f"{name} is idle and waking it would exceed {limits.wakes_per_hour} wakes an hour "
        "across the account. Try later.",
    )
    yield (
        "limit_chain",
        counts.get("chain", 0) >= limits.chain_without_you,
        f"This chain of messages reached {limits.chain_without_you} without the person. "
        "Stop passing messages on and tell the person.",
    )
