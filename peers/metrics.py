"""Delivery metrics for the admin page, across every account.

Each figure is one indexed query computed in the database, percentiles included:
`percentile_cont` on PostgreSQL, the same linear interpolation built from window
functions on SQLite. No message row is ever loaded into Python. The population is
the messages sent in the window (`created_at >= since`), in the state they are in now."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Count, F, Func, IntegerField, Max, OuterRef, Q, Subquery

from peers.limits import current_limits
from peers.models import Activity, Limits, PeerMessage

WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(days=7)}
# Seconds per bar of the "over time" chart, by window.
BUCKET_SECONDS = {"hour": 300, "day": 3600, "week": 3600}
PATHS = list(PeerMessage.Path.values)
STATES = list(PeerMessage.State.values)
NOT_DELIVERED_REASONS = ["agent_unavailable", "turn_failed", "worker_stopped", "other"]
BUSIEST_PAIRS = 5
QUANTILES = {"p50_seconds": 0.5, "p95_seconds": 0.95}


@dataclass
class Pair:
    chats: list[str]
    messages: int
    # The most messages this pair had within any one pair window (for pair_per_window).
    peak: int


@dataclass
class Metrics:
    window: str
    since: datetime
    now: datetime
    sent: int = 0
    by_state: dict = field(default_factory=dict)
    refusals: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)
    not_delivered: dict = field(default_factory=dict)
    wakes: int = 0
    busiest_pairs: list[Pair] = field(default_factory=list)
    # (bucket start, messages sent, wakes), oldest first, every bucket present.
    over_time: list[tuple[datetime, int, int]] = field(default_factory=list)
    bucket_seconds: int = 3600

    def as_json(self) -> dict:
        """CONTRACT.md's metrics.json shape, exactly."""
        return {
            "window": self.window,
            "since": self.since.isoformat(),
            "sent": self.sent,
            "by_state": self.by_state,
            "refusals": self.refusals,
            "paths": self.paths,
            "not_delivered": self.not_delivered,
            "wakes": self.wakes,
            "busiest_pairs": [
                {"chats": pair.chats, "messages": pair.messages} for pair in self.busiest_pairs
            ],
        }


def compute(window: str, *, now: datetime, limits: Limits | None = None) -> Metrics:
    """`window` is a key of WINDOWS (the caller has checked it)."""
    limits = limits or current_limits()
    metrics = Metrics(window=window, since=now - WINDOWS[window], now=now)
    metrics.bucket_seconds = BUCKET_SECONDS[window]
    add_states(metrics)
    metrics.refusals = refusals_since(metrics.since)
    metrics.paths = paths_since(metrics.since)
    metrics.busiest_pairs = busiest_pairs(metrics.since, minutes=limits.pair_window_minutes)
    metrics.over_time = over_time(metrics.since, now, metrics.bucket_seconds)
    return metrics


def sent_since(since: datetime):
    return PeerMessage.objects.filter(created_at__gte=since).order_by()


def add_states(metrics: Metrics) -> None:
    """Sent, by state, not delivered by reason and wakes: one GROUP BY over one index."""
    rows = (
        sent_since(metrics.since)
        .values("state", "reason")
        .annotate(n=Count("*"), wakes=Count("woke", filter=Q(woke=True)))
    )
    metrics.by_state = dict.fromkeys(STATES, 0)
    metrics.not_delivered = dict.fromkeys(NOT_DELIVERED_REASONS, 0)
    for row in rows:
        metrics.sent += row["n"]
        metrics.wakes += row["wakes"]
        metrics.by_state[row["state"]] = metrics.by_state.get(row["state"], 0) + row["n"]
        if row["state"] == PeerMessage.State.NOT_DELIVERED:
            reason = row["reason"] if row["reason"] in NOT_DELIVERED_REASONS else "other"
            metrics.not_delivered[reason] += row["n"]


def refusals_since(since: datetime) -> dict[str, int]:
    """Refusals by code, most frequent first; only codes that occurred."""
    rows = (
        Activity.objects.filter(action=Activity.Action.REFUSED, created_at__gte=since)
        .order_by()
        .values("detail")
        .annotate(n=Count("*"))
        .order_by("-n", "detail")
    )
    return {row["detail"]: row["n"] for row in rows}


# Delivery paths: count, p50, p95, max seconds from sent to delivered ----------

PATHS_SQL = {
    "postgresql": """
        SELECT path, COUNT(*),
               percentile_cont(0.5) WITHIN GROUP (ORDER BY secs),
               percentile_cont(0.95) WITHIN GROUP (ORDER BY secs),
               MAX(secs)
        FROM (SELECT path, EXTRACT(EPOCH FROM delivered_at - created_at)::float8 AS secs
              FROM {table}
              WHERE state = %s AND created_at >= %s AND path <> '' AND delivered_at IS NOT NULL
             ) AS delivered
        GROUP BY path
    """,
    # percentile_cont by hand: the value at rank p*(n-1), interpolated between the
    # two rows around it, both found by ROW_NUMBER() within the path.
    "sqlite": """
        WITH delivered AS (
            SELECT path, secs,
                   ROW_NUMBER() OVER (PARTITION BY path ORDER BY secs) - 1 AS rank,
                   COUNT(*) OVER (PARTITION BY path) AS n
            FROM (SELECT path,
                         (julianday(delivered_at) - julianday(created_at)) * 86400.0 AS secs
                  FROM {table}
                  WHERE state = %s AND created_at >= %s AND path <> ''
                        AND delivered_at IS NOT NULL)
        ), positioned AS (
            SELECT path, secs, rank, n, 0.5 * (n - 1) AS p50, 0.95 * (n - 1) AS p95
            FROM delivered
        )
        SELECT path, MAX(n),
               {p50}, {p95}, MAX(secs)
        FROM positioned
        GROUP BY path
    """,
}
# MAX(CASE WHEN rank = k THEN secs END) is the k-th smallest; `p` is a column of the
# rank wanted (constant within a path), so MAX(p) reads it outside the CASE.
AT_RANK = "MAX(CASE WHEN rank = CAST({p} AS INTEGER){plus} THEN secs END)"
INTERPOLATE = "{low} + (MAX({p}) - CAST(MAX({p}) AS INTEGER)) * (COALESCE({high}, {low}) - {low})"


def interpolate(p: str) -> str:
    low, high = AT_RANK.format(p=p, plus=""), AT_RANK.format(p=p, plus=" + 1")
    return INTERPOLATE.format(low=low, high=high, p=p)


def paths_sql() -> str:
    vendor = "postgresql" if connection.vendor == "postgresql" else "sqlite"
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    return PATHS_SQL[vendor].format(table=table, p50=interpolate("p50"), p95=interpolate("p95"))


def paths_since(since: datetime) -> dict[str, dict]:
    """Every delivery path, with zeros and nulls where nothing went that way."""
    paths = {
        path: {"delivered": 0, "p50_seconds": None, "p95_seconds": None, "max_seconds": None}
        for path in PATHS
    }
    params = [PeerMessage.State.DELIVERED, connection.ops.adapt_datetimefield_value(since)]
    with connection.cursor() as cursor:
        cursor.execute(paths_sql(), params)
        rows = cursor.fetchall()
    for path, count, p50, p95, longest in rows:
        paths[path] = {
            "delivered": count,
            "p50_seconds": seconds(p50),
            "p95_seconds": seconds(p95),
            "max_seconds": seconds(longest),
        }
    return paths


def seconds(value) -> float | None:
    return None if value is None else round(max(float(value), 0.0), 3)


# Busiest pairs, and how close they came to pair_per_window -------------------


def busiest_pairs(since: datetime, *, minutes: int) -> list[Pair]:
    """The pairs that sent most in the window, with their peak within one pair window.

    One statement: the top pairs in a subquery; for each of their messages, a count of
    the pair's messages in the pair window ending there (the (pair, created_at) index)."""
    window = timedelta(minutes=minutes)
    sent = sent_since(since).exclude(pair="")
    top = (sent.values("pair").annotate(n=Count("*")).order_by("-n", "pair").values("pair"))[
        :BUSIEST_PAIRS
    ]
    in_window = (
        PeerMessage.objects.filter(
            pair=OuterRef("pair"),
            created_at__lte=OuterRef("created_at"),
            created_at__gte=OuterRef("created_at") - window,
        )
        .order_by()
        .values("pair")
        .annotate(n=Count("*"))
        .values("n")
    )
    rows = (
        sent.filter(pair__in=top)
        .annotate(in_window=Subquery(in_window, output_field=IntegerField()))
        .values("pair")
        .annotate(messages=Count("*"), peak=Max("in_window"))
        .order_by("-messages", "pair")
    )
    return [Pair(row["pair"].split("|"), row["messages"], row["peak"]) for row in rows]


# Messages and wakes over time ---------------------------------------------------


class EpochBucket(Func):
    """floor(epoch seconds / size): which bar of the chart a row falls in."""

    output_field = IntegerField()

    def __init__(self, expression, size: int):
        super().__init__(expression, output_field=IntegerField())
        self.size = int(size)

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"CAST((julianday({sql}) - 2440587.5) * 86400.0 / {self.size} AS INTEGER)", params

    def as_postgresql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"FLOOR(EXTRACT(EPOCH FROM {sql}) / {self.size})::bigint", params


def over_time(since: datetime, now: datetime, size: int) -> list[tuple[datetime, int, int]]:
    rows = (
        sent_since(since)
        .annotate(bucket=EpochBucket(F("created_at"), size))
        .values("bucket")
        .annotate(n=Count("*"), wakes=Count("woke", filter=Q(woke=True)))
    )
    counts = {row["bucket"]: (row["n"], row["wakes"]) for row in rows}
    first, last = int(since.timestamp()) // size, int(now.timestamp()) // size
    return [
        (datetime.fromtimestamp(b * size, tz=since.tzinfo), *counts.get(b, (0, 0)))
        for b in range(first, last + 1)
    ]
