"""Retries never duplicate: the same Idempotency-Key from the same credential within
24 h gets the first answer again, and the work runs once — also across a crash.

The first request claims (credential digest, key) under a unique constraint, does
the work and stores its answer; a racer that lost the claim waits for that answer
(polling the row, with a deadline) instead of doing the work again. An answer that
is worth retrying (5xx, 429) is not kept: the claim is released instead.

Crash safety: the work notes itself on the claim (`note_work`, called by the
actions that create: a send) in the work's own transaction. So a claim left without
an answer by a killed process either has no note — the work provably did not commit
(and can no longer: its note would find the claim gone, and roll the work back), so
the key runs again — or has one, and the retry is answered from what was committed
(`replay`), never by doing it twice. Either only after IDEMPOTENCY_ABANDONED_SECONDS.

`run_once(credential, key, fn)` for sync callers, `arun_once` for async ones
(MCP tools); crosstalk.middleware applies it to every POST under /api/v1/ with the
header."""

import asyncio
import contextvars
import hashlib
import json
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.models import IdempotentAnswer
from kernel.refusals import Refusal

type Answer = tuple[int, object]
# The answer for a claim whose work committed but whose answer was lost: (result → answer).
type Replay = Callable[[str], Answer | None]

KEEP_FOR = timedelta(hours=24)
# Longer than the longest waiting call (45 s): a racer waits for the first one's answer.
WAIT_FOR_FIRST_SECONDS = 60
POLL_SECONDS = 0.05
MAX_KEY_LENGTH = 255
# The claim the running request works under (None outside a keyed request).
CURRENT: contextvars.ContextVar[IdempotentAnswer | None] = contextvars.ContextVar(
    "idempotency_claim", default=None
)


def abandoned_after() -> timedelta:
    """A claim still unanswered after this long belongs to a process that died."""
    return timedelta(seconds=settings.IDEMPOTENCY_ABANDONED_SECONDS)


def credential_digest(credential: str) -> str:
    # Not the token table's digest: a leaked row here must not name a token there.
    return hashlib.sha256(f"idempotency:{credential}".encode()).hexdigest()


def check_key(key: str) -> None:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable() or not key.isascii():
        raise Refusal(
            "invalid_input", f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} printable ASCII."
        )


def run_once(
    credential: str,
    key: str,
    fn: Callable[[], Answer],
    *,
    request: str = "",
    replay: Replay | None = None,
) -> Answer:
    """fn() → (status, body), run at most once per (credential, key) in 24 h.

    `request` identifies what was asked (method, path, body): the same key for a
    different request is refused (idempotency_key_reused) rather than replayed."""
    deadline = time.monotonic() + WAIT_FOR_FIRST_SECONDS
    while (found := look(credential, key, request, replay)) is None:
        past(deadline)
        time.sleep(POLL_SECONDS)
    record, mine = found
    if not mine:
        return record.status, json.loads(record.body)
    token = CURRENT.set(record)
    try:
        pause_for_tests("before_work")
        answer = fn()
        pause_for_tests("after_work")
    except BaseException:
        release(record)
        raise
    finally:
        CURRENT.reset(token)
    return keep(record, answer, replay)


async def arun_once(
    credential: str,
    key: str,
    fn: Callable[[], Awaitable[Answer]],
    *,
    request: str = "",
    replay: Replay | None = None,
) -> Answer:
    """run_once for a coroutine; the wait for a first request's answer holds no thread."""
    deadline = time.monotonic() + WAIT_FOR_FIRST_SECONDS
    while (found := await sync_to_async(look)(credential, key, request, replay)) is None:
        past(deadline)
        await asyncio.sleep(POLL_SECONDS)
    record, mine = found
    if not mine:
        return record.status, json.loads(record.body)
    token = CURRENT.set(record)
    try:
        await sync_to_async(pause_for_tests)("before_work")
        answer = await fn()
        await sync_to_async(pause_for_tests)("after_work")
    except BaseException:
        await sync_to_async(release)(record)
        raise
    finally:
        CURRENT.reset(token)
    return await sync_to_async(keep)(record, answer, replay)


def pause_for_tests(point: str) -> None:
    """Tests only (IDEMPOTENCY_TEST_PAUSE_AT): block here, to be killed with -9."""
    if point == settings.IDEMPOTENCY_TEST_PAUSE_AT:
        print(f"idempotency: paused {point}", flush=True)  # noqa: T201
        threading.Event().wait()


def note_work(result: str) -> None:
    """Called by an action that creates, inside its transaction: the claim of the
    running keyed request notes what committed, in that same transaction. A claim
    forgotten meanwhile (its request was taken for dead) refuses the work instead."""
    record = CURRENT.get()
    if record is None:
        return
    claims = IdempotentAnswer.objects.filter(pk=record.pk)
    if claims.filter(result="", status__isnull=True).update(result=result[:80]):
        return
    if claims.exists():
        return  # noted by this request's earlier work (connect sends two), or answered
    raise Refusal(
        "idempotency_in_progress",
        "This request took too long and its Idempotency-Key was taken over; retry it.",
    )


def look(
    credential: str, key: str, request: str, replay: Replay | None = None
) -> tuple[IdempotentAnswer, bool] | None:
    """(our fresh claim, True), (the stored answer, False), or None while another
    request still works on the key."""
    check_key(key)
    request_digest = hashlib.sha256(request.encode()).hexdigest()
    record, mine = claim(credential_digest(credential), key, request_digest)
    if record.request_digest != request_digest:
        raise Refusal(
            "idempotency_key_reused", "This Idempotency-Key was used for another request."
        )
    if mine or record.status is not None:
        return record, mine
    if record.result and is_abandoned(record, timezone.now()):
        return answer_from_result(record, replay), False
    return None


def answer_from_result(record: IdempotentAnswer, replay: Replay | None) -> IdempotentAnswer:
    """The work committed, its answer died with its process: answer from what
    committed (or, with nothing to build it from, say it was done)."""
    answer = replay(record.result) if replay else None
    if answer is None:
        done = Refusal(
            "idempotency_key_done",
            f"The first request with this Idempotency-Key did its work ({record.result}) "
            "but its answer was lost; read the current state instead of retrying.",
        )
        answer = (done.status, done.as_json())
    status, body = answer
    body = json.dumps(body, cls=DjangoJSONEncoder)
    IdempotentAnswer.objects.filter(pk=record.pk, status__isnull=True).update(
        status=status, body=body
    )
    record.refresh_from_db()
    return record


def past(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise Refusal(
            "idempotency_in_progress",
            "A request with this Idempotency-Key is still running; retry in a moment.",
        )


def claim(digest: str, key: str, request_digest: str) -> tuple[IdempotentAnswer, bool]:
    """Insert our claim, or read the row that is there (forgetting it when stale)."""
    now = timezone.now()
    try:
        with transaction.atomic():
            record = IdempotentAnswer.objects.create(
                credential=digest, key=key, request_digest=request_digest, created_at=now
            )
        return record, True
    except IntegrityError:
        pass
    record = IdempotentAnswer.objects.filter(credential=digest, key=key).first()
    if record is None or is_stale(record, now):
        forget(record)
        return claim(digest, key, request_digest)
    return record, False


def is_stale(record: IdempotentAnswer, now) -> bool:
    """Past its 24 h, or abandoned with provably nothing done (no result noted)."""
    if record.created_at < now - KEEP_FOR:
        return True
    return not record.result and is_abandoned(record, now)


def is_abandoned(record: IdempotentAnswer, now) -> bool:
    return record.status is None and record.created_at < now - abandoned_after()


def forget(record: IdempotentAnswer | None) -> None:
    """Delete a stale claim. One with no result only while it still has none: on
    PostgreSQL the delete waits for a work that is noting itself, then spares it."""
    if record is None:
        return
    rows = IdempotentAnswer.objects.filter(pk=record.pk, created_at=record.created_at)
    if record.created_at >= timezone.now() - KEEP_FOR:
        rows = rows.filter(result="", status__isnull=True)
    rows.delete()


def keep(record: IdempotentAnswer, answer: Answer, replay: Replay | None = None) -> Answer:
    status, body = answer
    if status >= 500 or status == 429:
        release(record)  # worth retrying: the next try runs again (or replays, if it did)
        return answer
    IdempotentAnswer.objects.filter(pk=record.pk).update(
        status=status, body=json.dumps(body, cls=DjangoJSONEncoder)
    )
    return answer


def release(record: IdempotentAnswer) -> None:
    """Free the key for a retry, unless the work committed (then a retry replays it)."""
    released = IdempotentAnswer.objects.filter(pk=record.pk, status__isnull=True, result="")
    if not released.delete()[0]:
        IdempotentAnswer.objects.filter(pk=record.pk, status__isnull=True).update(
            created_at=timezone.now() - abandoned_after() - timedelta(seconds=1)
        )


def do_delete_old_answers(now) -> int:
    """Answers past their 24 h (the runners' lease rounds call this)."""
    return IdempotentAnswer.objects.filter(created_at__lt=now - KEEP_FOR).delete()[0]
