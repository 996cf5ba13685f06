"""The limits' counters as rows: how many messages each key sent in each minute.

A send adds one to its minute's row of each key it counts for (in the statement that
inserts the message), and a check sums the rows of the minutes wholly inside its
window and counts the messages themselves only before the first whole minute: the
window's oldest, partial minute, or what came before the rows kept. So a send at the
10,000th message of the hour reads about as many rows as the first one did, and the
counts stay exact: every message is either in a whole minute's row or counted itself.

Which messages each kind counts (what the limits' COUNTs over the messages counted):

- chat: every message a chat sent (key: the sending chat);
- pair: every message between two chats, both ways (key: the pair);
- pair_agent: those of them the agents sent (key: the pair), for "without you";
- wakes: every message that woke its recipient (key: the woken chat; summed by account).

Rows are never decremented: a message keeps counting whatever becomes of it
(cancelled, delivered, failed), as the COUNTs did. Deleting a chat deletes the rows
keyed by it (its messages go with it)."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection, transaction

from peers.models import MessageCount, PeerMessage

Kind = MessageCount.Kind
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The rows a check reads go back this far: the longest window (a pair window of 24
# hours) and the minute it starts in. Older messages are counted themselves.
HORIZON_MINUTES = 24 * 60 + 1
# Rows are deleted two hours after that, so a process whose clock runs behind the
# pruning one still finds every row its checks read.
PRUNE_AFTER_MINUTES = HORIZON_MINUTES + 120


def minute_of(moment: datetime) -> int:
    """Whole minutes since 1970 (UTC): a row's minute."""
    return (moment - EPOCH) // timedelta(minutes=1)


def start_of(minute: int) -> datetime:
    return EPOCH + timedelta(minutes=minute)


def first_row_minute(since: datetime, now: datetime) -> int:
    """The first minute a check reads rows from: the first whole minute since `since`,
    or the oldest minute whose rows are surely kept."""
    whole = -(-(since - EPOCH) // timedelta(minutes=1))  # rounded up
    return max(whole, minute_of(now) - HORIZON_MINUTES)


@dataclass(frozen=True, slots=True)
class Window:
    """One counter of a check: messages of `key` since `since` (inclusive unless
    `after`), the rows of `kind` for the whole minutes, `where` (a condition on
    peers_peermessage with its parameters) for the messages before them."""

    kind: str
    key: str
    since: datetime
    where: str
    params: tuple
    after: bool = False


def window_sql(window: Window, *, now: datetime, bound: int) -> tuple[str, list]:
    """One scalar expression: how many messages the window holds, exact up to `bound`
    (each part stops reading at `bound`: a row holds at least one message)."""
    first = first_row_minute(window.since, now)
    messages = connection.ops.quote_name(PeerMessage._meta.db_table)
    counts = connection.ops.quote_name(MessageCount._meta.db_table)
    adapt = connection.ops.adapt_datetimefield_value
    since = ">" if window.after else ">="
    before = (
        f"(SELECT COUNT(*) FROM (SELECT 1 FROM {messages} WHERE {window.where} "  # noqa: S608
        f"AND created_at {since} %s AND created_at < %s LIMIT %s) AS m)"
    )
    key_column = "user_id" if window.kind == Kind.WAKES else "key"
    rows = (
        f"(SELECT COALESCE(SUM(n), 0) FROM (SELECT count AS n FROM {counts} "  # noqa: S608
        f"WHERE kind = %s AND {key_column} = %s AND minute >= %s LIMIT %s) AS r)"
    )
    params = [
        *window.params,
        adapt(window.since),
        adapt(start_of(first)),
        bound,
        window.kind,
        window.key,
        first,
        bound,
    ]
    return f"({before} + {rows})", params


def rows_for(message: PeerMessage) -> list[MessageCount]:
    """The rows this message adds one to."""
    minute = minute_of(message.created_at)
    keyed = []
    if message.sent_by == PeerMessage.SentBy.NOTICE:
        pass  # Crosstalk's notice counts only as a wake (below), never as the chat's send
    elif message.from_chat_id is not None:
        keyed.append((Kind.CHAT, message.from_chat_id, message.from_chat_id))
    if message.pair and message.sent_by != PeerMessage.SentBy.NOTICE:
        first_chat = message.pair.split("|")[0]
        keyed.append((Kind.PAIR, message.pair, first_chat))
        if message.sent_by == PeerMessage.SentBy.AGENT:
            keyed.append((Kind.PAIR_AGENT, message.pair, first_chat))
    if message.woke and message.to_chat_id is not None:
        keyed.append((Kind.WAKES, message.to_chat_id, message.to_chat_id))
    return [
        MessageCount(
            user_id=message.user_id, chat_id=chat, kind=kind, key=key, minute=minute, count=1
        )
        for kind, key, chat in keyed
    ]


def add_sql(rows: list[MessageCount]) -> tuple[str, list]:
    """INSERT these rows, or add their counts to the rows already there (SQLite and
    PostgreSQL alike); `rows` name each (kind, key, minute) once."""
    table = connection.ops.quote_name(MessageCount._meta.db_table)
    values = ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))
    params = [p for r in rows for p in (r.user_id, r.chat_id, r.kind, r.key, r.minute, r.count)]
    sql = (
        f"INSERT INTO {table} (user_id, chat_id, kind, key, minute, count) VALUES {values} "  # noqa: S608
        f"ON CONFLICT (kind, key, minute) DO UPDATE SET count = {table}.count + excluded.count"
    )
    return sql, params


def add_counts(messages: list[PeerMessage], *, now: datetime) -> None:
    """Count messages written without a send (seed_messages): their rows, summed, for
    those recent enough that a check reads them."""
    oldest = start_of(minute_of(now) - PRUNE_AFTER_MINUTES)
    totals: dict[tuple, MessageCount] = {}
    for message in (m for m in messages if m.created_at >= oldest):
        for row in rows_for(message):
            same = totals.setdefault((row.kind, row.key, row.minute), row)
            if same is not row:
                same.count += 1
    rows = list(totals.values())
    with connection.cursor() as cursor:
        for start in range(0, len(rows), 500):
            cursor.execute(*add_sql(rows[start : start + 500]))


def do_prune_counts(now: datetime) -> int:
    """Delete the rows no check reads any more (the runners' lease rounds call this)."""
    with transaction.atomic():
        old = MessageCount.objects.filter(minute__lt=minute_of(now) - PRUNE_AFTER_MINUTES)
        return old.delete()[0]
