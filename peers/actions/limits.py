"""Holding a send to the limits (counted in one query under the account lock),
and changing the limits."""

from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from chats.models import Chat
from chats.refusals import Refusal
from peers.actions.record import record
from peers.limits import current_limits, pair_key
from peers.models import Activity, Limits, PeerMessage

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
# Which limit each counter is held to: a count stops there (LIMIT), so a window
# fuller than its limit costs what a window at the limit does.
BOUNDS = {
    "chat_hour": "chat_per_hour",
    "pair_window": "pair_per_window",
    "pair_without_you": "pair_without_you",
    "wakes": "wakes_per_hour",
    "chain": "chain_without_you",
}


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
    wanted = {"wakes": [out.user.pk, hour_ago, True]} if wakes else {}
    sender = out.from_chat
    if sender is not None:
        pair = pair_key(sender.pk, recipient.pk)
        window = now - timedelta(minutes=limits.pair_window_minutes)
        wanted["chat_hour"] = [sender.pk, hour_ago]
        wanted["pair_window"] = [pair, window]
        if out.by_agent:
            wrote = [sender.person_wrote_at, recipient.person_wrote_at]
            since = max(filter(None, wrote), default=BEFORE_ANYTHING)
            wanted["pair_without_you"] = [pair, since, AGENT]
    if out.by_agent:
        wanted["chain"] = [chain, AGENT]
    counts, current = run_counters(wanted, limits)
    if not current:
        raise StaleLimits
    return counts


def run_counters(wanted: dict[str, list], limits: Limits) -> tuple[dict[str, int], bool]:
    table = connection.ops.quote_name(PeerMessage._meta.db_table)
    bounded = "(SELECT COUNT(*) FROM (SELECT 1 FROM {} WHERE {} LIMIT %s) AS c)"
    selects = [bounded.format(table, COUNTERS[name]) for name in wanted]
    adapt = connection.ops.adapt_datetimefield_value
    params = []
    for name, values in wanted.items():
        params += [adapt(p) if isinstance(p, datetime) else p for p in values]
        params.append(getattr(limits, BOUNDS[name]))
    clause, clause_params = current_clause(limits)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join([*selects, clause]), params + clause_params)
        *row, current = cursor.fetchone()
    return dict(zip(wanted, row, strict=True)), bool(current)


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
