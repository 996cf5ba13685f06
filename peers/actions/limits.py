"""Holding a send to the limits (counted in one query under the account lock, from
the per-minute rows of peers.actions.counters), and changing the limits."""

from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from chats.models import Chat
from kernel.refusals import Refusal
from peers.actions.counters import Kind, Window, window_sql
from peers.actions.record import record
from peers.limits import current_limits, pair_key
from peers.models import Activity, Limits, PeerMessage

BEFORE_ANYTHING = datetime(2000, 1, 1, tzinfo=UTC)
AGENT = PeerMessage.SentBy.AGENT.value

# Which limit each counter is held to: a count stops there, so a window fuller than
# its limit costs what a window at the limit does.
BOUNDS = {
    "chat_hour": "chat_per_hour",
    "pair_window": "pair_per_window",
    "pair_without_you": "pair_without_you",
    "wakes": "wakes_per_hour",
    "chain": "chain_without_you",
}
# The chain is counted from its messages (indexed by chain): it is no time window
# that unrelated sends fill, only its own messages, and each of those passed this
# check, so a count never reads more than the chain's limit.
CHAIN = "(SELECT COUNT(*) FROM (SELECT 1 FROM {} WHERE chain = %s AND sent_by = %s LIMIT %s) AS c)"


class StaleLimits(Exception):  # noqa: N818 (a signal, not an error)
    """An admin changed the limits since this process read them: check again."""


# This process's copy of the limits row. A send checks that it is still current in
# its counters statement, so an admin's change holds from the next send on, without
# a statement of its own on every send.
CACHED: list[Limits] = []


def cached_limits() -> Limits:
    return CACHED[0] if CACHED else fresh_limits()


def fresh_limits() -> Limits:
    CACHED[:] = [current_limits()]
    return CACHED[0]


def limits_current(limits: Limits) -> bool:
    """Is `limits` still the row admins last saved? (one query; a refusal's path only)"""
    sql, params = current_clause(limits)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + sql, params)
        return bool(cursor.fetchone()[0])


def current_clause(limits: Limits) -> tuple[str, list]:
    table = connection.ops.quote_name(Limits._meta.db_table)
    if limits.updated_at is None:  # never saved: the defaults hold while no row exists
        return f"NOT EXISTS (SELECT 1 FROM {table} WHERE id = 1)", []  # noqa: S608
    stamp = connection.ops.adapt_datetimefield_value(limits.updated_at)
    return f"EXISTS (SELECT 1 FROM {table} WHERE id = 1 AND updated_at = %s)", [stamp]  # noqa: S608


def count_recent(
    out, recipient: Chat, *, chain: str, wakes: bool, now, limits: Limits
) -> dict[str, int]:
    """Every counter this send is held to, in one query; StaleLimits if `limits` is
    no longer the saved row."""
    hour_ago = now - timedelta(hours=1)
    windows = {}
    if wakes:
        where = "user_id = %s AND woke = %s"
        windows["wakes"] = Window(Kind.WAKES, out.user.pk, hour_ago, where, (out.user.pk, True))
    sender = out.from_chat
    if sender is not None:
        pair = pair_key(sender.pk, recipient.pk)
        window = now - timedelta(minutes=limits.pair_window_minutes)
        where = "from_chat_id = %s"
        windows["chat_hour"] = Window(Kind.CHAT, sender.pk, hour_ago, where, (sender.pk,))
        windows["pair_window"] = Window(Kind.PAIR, pair, window, "pair = %s", (pair,))
        if out.by_agent:
            wrote = [sender.person_wrote_at, recipient.person_wrote_at]
            since = max(filter(None, wrote), default=BEFORE_ANYTHING)
            where = "pair = %s AND sent_by = %s"
            windows["pair_without_you"] = Window(
                Kind.PAIR_AGENT, pair, since, where, (pair, AGENT), after=True
            )
    counts, current = run_counters(windows, chain if out.by_agent else None, now, limits)
    if not current:
        raise StaleLimits
    return counts


def run_counters(
    windows: dict[str, Window], chain: str | None, now, limits: Limits
) -> tuple[dict[str, int], bool]:
    selects, params = [], []
    for name, window in windows.items():
        sql, window_params = window_sql(window, now=now, bound=getattr(limits, BOUNDS[name]))
        selects.append(sql)
        params += window_params
    names = list(windows)
    if chain is not None:
        selects.append(CHAIN.format(connection.ops.quote_name(PeerMessage._meta.db_table)))
        params += [chain, AGENT, limits.chain_without_you]
        names.append("chain")
    clause, clause_params = current_clause(limits)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join([*selects, clause]), params + clause_params)
        *row, current = cursor.fetchone()
    return dict(zip(names, row, strict=True)), bool(current)


def check_limits(out, recipient: Chat, *, chain: str, wakes: bool, now, limits: Limits) -> None:
    """docs/rules.md's limits, in its order; the caller holds the account lock.

    `out` is the send's Outgoing (who sends, and whether an agent does)."""
    counts = count_recent(out, recipient, chain=chain, wakes=wakes, now=now, limits=limits)
    for code, over, sentence in refusals(counts, recipient=recipient, wakes=wakes, limits=limits):
        if over:
            raise Refusal(code, sentence)


def refusals(counts: dict, *, recipient: Chat, wakes: bool, limits: Limits):
    name = recipient.name
    yield (
        "limit_chat_hour",
        counts.get("chat_hour", 0) >= limits.chat_per_hour,
        f"This chat reached the most messages a chat may send in an hour "
        f"({limits.chat_per_hour}). Carry on with your own work and try later.",
    )
    yield (
        "limit_pair_window",
        counts.get("pair_window", 0) >= limits.pair_per_window,
        f"You and {name} reached the most messages two chats may exchange in "
        f"{limits.pair_window_minutes} minutes ({limits.pair_per_window}). "
        "Wait before writing again.",
    )
    yield (
        "limit_pair_without_you",
        counts.get("pair_without_you", 0) >= limits.pair_without_you,
        f"You and {name} reached the most messages two chats may exchange without the "
        f"person ({limits.pair_without_you}). Stop messaging and tell the person what is "
        "still open between you.",
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
        f"This chain of messages reached the most it may grow without the person "
        f"({limits.chain_without_you}). Stop passing messages on and tell the person.",
    )


def do_set_limits(values: dict[str, int], *, user=None) -> Limits:
    """Validated like the admin form; takes effect on the next send everywhere.

    With `user` (the admin), one activity row per changed limit names its old and new value."""
    with transaction.atomic():
        limits = locked_limits()
        old = {name: getattr(limits, name) for name in values}
        for name, value in values.items():
            setattr(limits, name, value)
        try:
            limits.full_clean()
        except ValidationError as error:
            field, problems = next(iter(error.message_dict.items()))
            raise Refusal("invalid_input", f"{field}: {problems[0]}") from None
        if limits._state.adding:
            limits.save(force_insert=True)
        else:
            limits.save(update_fields=[*values, "updated_at"])
        now = timezone.now()
        for name, value in values.items():
            if user is not None and old[name] != value:
                detail = f"{name}={value} (was {old[name]})"
                record(user.pk, Activity.Action.LIMITS, detail=detail, now=now)
    return limits


def locked_limits() -> Limits:
    """The one row, locked so two admins' changes never record the same old value."""
    rows = Limits.objects.filter(pk=1)
    if connection.features.has_select_for_update:
        rows = rows.select_for_update()
    return rows.first() or Limits(pk=1)
