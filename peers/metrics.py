"""Delivery metrics for the admin page, across every account.

Each figure is one indexed query computed in the database, percentiles included:
`percentile_cont` on PostgreSQL, the same linear interpolation built from window
functions on SQLite. No message row is ever loaded into Python. The population is
the messages sent in the window (`created_at >= since`), in the state they are in now."""

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import (
    Aggregate,
    Count,
    FloatField,
    Max,
    Q,
    Sum,
)

from peers.limits import current_limits
from peers.models import Activity, Limits, PeerMessage, SecondsToDeliver

WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(days=7)}
# Seconds per bar of the "over time" chart, by window.
BUCKET_SECONDS = {"hour": 300, "day": 3600, "week": 3600}
PATHS = list(PeerMessage.Path.values)
STATES = list(PeerMessage.State.values)
NOT_DELIVERED_REASONS = ["agent_unavailable", "turn_failed", "worker_stopped", "other"]
BUSIEST_PAIRS = 5
# Percentiles on SQLite: at most this many rows in the window, sort them (see ranked).
SORT_BELOW = 5000
BY_RANGE_INDEX = "peermsg_metrics_window"


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
    # Delivered messages by path, counted with the states (the percentiles need n).
    delivered: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        """docs/api.md's metrics.json shape, exactly."""
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
    map_database_file()
    metrics = Metrics(window=window, since=now - WINDOWS[window], now=now)
    metrics.bucket_seconds = BUCKET_SECONDS[window]
    add_states(metrics)
    metrics.refusals = refusals_since(metrics.since)
    metrics.paths = paths_since(metrics.since, counts=metrics.delivered)
    metrics.busiest_pairs = busiest_pairs(metrics.since, minutes=limits.pair_window_minutes)
    metrics.over_time = over_time(metrics.since, now, metrics.bucket_seconds)
    return metrics


def map_database_file() -> None:
    """SQLite: read the file through mmap for this connection. Each request opens a
    fresh connection with a cold page cache; the week's aggregates read ~100k index
    entries, and mmap spares a read() per page (about a third of their time)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA mmap_size = {256 * 1024 * 1024}")


def sent_since(since: datetime):
    return PeerMessage.objects.filter(created_at__gte=since).order_by()


def add_states(metrics: Metrics) -> None:
    """Sent, by state, not delivered by reason, delivered by path and wakes: one
    GROUP BY streamed along one covering index in its own order."""
    rows = (
        sent_since(metrics.since)
        .values("state", "reason", "path")
        .annotate(n=Count("*"), wakes=Count("woke", filter=Q(woke=True)))
    )
    metrics.by_state = dict.fromkeys(STATES, 0)
    metrics.delivered = {}
    metrics.not_delivered = dict.fromkeys(NOT_DELIVERED_REASONS, 0)
    for row in rows:
        metrics.sent += row["n"]
        metrics.wakes += row["wakes"]
        metrics.by_state[row["state"]] = metrics.by_state.get(row["state"], 0) + row["n"]
        if row["state"] == PeerMessage.State.DELIVERED and row["path"]:
            metrics.delivered[row["path"]] = metrics.delivered.get(row["path"], 0) + row["n"]
        if row["state"] == PeerMessage.State.NOT_DELIVERED:
            reason = row["reason"] if row["reason"] in NOT_DELIVERED_REASONS else "other"
            metrics.not_delivered[reason] += row["n"]


def refusals_since(since: datetime) -> dict[str, int]:
    """Refusals by code, most frequent first; only codes that occurred."""
    rows = (
        Activity.objects.filter(action=Activity.Action.REFUSED, created_at__gte=since)
        .order_by()
        .values("detail")
        .annotate(n=Sum("count"))
        .order_by("-n", "detail")
    )
    return {row["detail"]: row["n"] for row in rows}


# Delivery paths: count, p50, p95, max seconds from sent to delivered ----------


def paths_since(since: datetime, *, counts: dict[str, int]) -> dict[str, dict]:
    """Every delivery path, with zeros and nulls where nothing went that way.

    `counts`: delivered messages per path in the window (from add_states)."""
    paths = {path: figures(0, None, None, None) for path in PATHS}
    if connection.vendor == "postgresql":
        found = percentile_cont(since)
    else:
        found = ranked(since, counts=counts)
    paths.update(found)
    return paths


def figures(delivered: int, p50, p95, longest) -> dict:
    return {
        "delivered": delivered,
        "p50_seconds": seconds(p50),
        "p95_seconds": seconds(p95),
        "max_seconds": seconds(longest),
    }


def seconds(value) -> float | None:
    return None if value is None else round(max(float(value), 0.0), 3)


def delivered_since(since: datetime, path: str | None = None):
    """Delivered messages with their delivery time; the peermsg_metrics_delivery index."""
    rows = sent_since(since).filter(state=PeerMessage.State.DELIVERED)
    rows = rows.filter(path=path) if path else rows.exclude(path="")
    return rows.annotate(secs=SecondsToDeliver()).filter(secs__isnull=False)


def percentile_cont(since: datetime) -> dict[str, dict]:
    """PostgreSQL: every path's figures in one GROUP BY."""
    secs = SecondsToDeliver()
    rows = (
        delivered_since(since)
        .values("path")
        .annotate(
            n=Count("*"),
            p50=PercentileCont(secs, fraction=0.5),
            p95=PercentileCont(secs, fraction=0.95),
            longest=Max("secs"),
        )
    )
    return {r["path"]: figures(r["n"], r["p50"], r["p95"], r["longest"]) for r in rows}


class PercentileCont(Aggregate):
    """PostgreSQL's percentile_cont(f) WITHIN GROUP (ORDER BY expression)."""

    template = "percentile_cont(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression, *, fraction: float):
        super().__init__(expression, fraction=float(fraction))


def ranked(since: datetime, *, counts: dict[str, int]) -> dict[str, dict]:
    """SQLite: percentile_cont by rank. Given each path's count n, one statement finds
    the two rows around rank p*(n-1) (ORDER BY seconds LIMIT 2 OFFSET k) and the
    slowest. A path with many rows in the window walks the index in seconds order
    (never sorted); one with few sorts just its rows in the window (a range of
    peermsg_metrics_window), since the walk would pass its whole history."""
    if not counts:
        return {}
    parts, params = [], []
    for path, n in counts.items():
        rows = delivered_since(since, path)
        by_range = n <= SORT_BELOW
        for label, quantile in (("p50", 0.5), ("p95", 0.95)):
            low = math.floor(quantile * (n - 1))
            add_part(parts, params, (path, label), rows, low, 2, by_range=by_range)
        add_part(parts, params, (path, "max"), rows, 0, 1, by_range=by_range, slowest=True)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        found = {(row[0], row[1]): (row[2], row[3]) for row in cursor.fetchall()}
    return {path: interpolated(path, n, found) for path, n in counts.items()}


def add_part(parts, params, key, rows, offset: int, size: int, *, by_range, slowest=False):
    order = "-secs" if slowest else "secs"
    inner = rows.order_by(order).values("secs")[offset : offset + size]
    sql, inner_params = inner.query.get_compiler(using=inner.db).as_sql()
    if by_range:
        table = connection.ops.quote_name(PeerMessage._meta.db_table)
        sql = sql.replace(f"FROM {table}", f"FROM {table} INDEXED BY {BY_RANGE_INDEX}", 1)
    parts.append(f"SELECT %s, %s, MIN(secs), MAX(secs) FROM ({sql}) AS ranked")  # noqa: S608
    params.extend([*key, *inner_params])


def interpolated(path: str, n: int, found: dict) -> dict:
    values = {}
    for label, quantile in (("p50", 0.5), ("p95", 0.95)):
        position = quantile * (n - 1)
        low, high = found[(path, label)]
        if low is None:  # a delivered row without its delivery time
            return figures(n, None, None, None)
        values[label] = low + (position - math.floor(position)) * (high - low)
    return figures(n, values["p50"], values["p95"], found[(path, "max")][1])


# Busiest pairs, and how close they came to pair_per_window -------------------


# For each message of the top pairs, how many of the pair's messages fall within the
# pair window ending at it (a RANGE frame), counting those just before `since` too.
PAIRS_SQL = """
    SELECT pair,
           SUM(CASE WHEN created_at >= %s THEN 1 ELSE 0 END) AS messages,
           MAX(CASE WHEN created_at >= %s THEN in_window END) AS peak
    FROM (SELECT pair, created_at,
                 COUNT(*) OVER (PARTITION BY pair ORDER BY {order}
                                RANGE BETWEEN {span} PRECEDING AND CURRENT ROW) AS in_window
          FROM {table}
          WHERE created_at >= %s AND pair IN (
              SELECT pair FROM {table} WHERE created_at >= %s AND pair <> ''
              GROUP BY pair ORDER BY COUNT(*) DESC, pair LIMIT {top})
         ) AS sent
    GROUP BY pair
    ORDER BY messages DESC, pair
"""


def busiest_pairs(since: datetime, *, minutes: int) -> list[Pair]:
    """The pairs that sent most in the window, with their peak within one pair window:
    one statement along the (pair, created_at) index."""
    seconds = minutes * 60
    if connection.vendor == "postgresql":
        order, span = "created_at", f"interval '{seconds} seconds'"
    else:  # julianday: days as a float, which a RANGE frame can count back in
        order, span = "julianday(created_at)", repr(seconds / 86400)
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    sql = PAIRS_SQL.format(order=order, span=span, table=table, top=BUSIEST_PAIRS)
    adapt = connection.ops.adapt_datetimefield_value
    early = since - timedelta(seconds=seconds)
    with connection.cursor() as cursor:
        cursor.execute(sql, [adapt(since), adapt(since), adapt(early), adapt(since)])
        rows = cursor.fetchall()
    return [Pair(pair.split("|"), messages, peak) for pair, messages, peak in rows]


# Messages and wakes over time ---------------------------------------------------


def over_time(since: datetime, now: datetime, size: int) -> list[tuple[datetime, int, int]]:
    """Per bucket of `size` seconds, messages sent and wakes, every bucket present."""
    first = int(since.timestamp()) // size
    starts = [
        datetime.fromtimestamp(b * size, tz=since.tzinfo)
        for b in range(first, int(now.timestamp()) // size + 1)
    ]
    if connection.vendor == "postgresql":
        counts = bucket_counts_grouped(since, size, first)
    else:
        counts = bucket_counts_by_range(since, starts, size)
    return [(start, *counts.get(i, (0, 0))) for i, start in enumerate(starts)]


def bucket_counts_grouped(since: datetime, size: int, first: int) -> dict:
    """PostgreSQL: one hash GROUP BY over the (created_at, woke) index."""
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    sql = (
        f"SELECT FLOOR(EXTRACT(EPOCH FROM created_at) / {int(size)})::bigint - %s, "  # noqa: S608
        "COUNT(*), COUNT(*) FILTER (WHERE woke) "
        f"FROM {table} WHERE created_at >= %s GROUP BY 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [first, since])
        return {row[0]: (row[1], row[2]) for row in cursor.fetchall()}


def bucket_counts_by_range(since: datetime, starts: list[datetime], size: int) -> dict:
    """SQLite: one statement of range counts along the (created_at, woke) index, which
    stays in time order, instead of a GROUP BY that would sort every row."""
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    adapt = connection.ops.adapt_datetimefield_value
    parts, params = [], []
    for i, start in enumerate(starts):
        parts.append(
            f"SELECT {i}, COUNT(*), COALESCE(SUM(CASE WHEN woke THEN 1 ELSE 0 END), 0) "  # noqa: S608
            f"FROM {table} WHERE created_at >= %s AND created_at < %s"
        )
        params += [adapt(max(start, since)), adapt(start + timedelta(seconds=size))]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return {row[0]: (row[1], row[2]) for row in cursor.fetchall()}
