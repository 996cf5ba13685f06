"""Retries never duplicate: the same Idempotency-Key from the same credential within
24 h gets the first answer again, and the work runs once.

The first request claims (credential digest, key) under a unique constraint, does
the work and stores its answer; a racer that lost the claim waits for that answer
(polling the row, with a deadline) instead of doing the work again. An answer that
is worth retrying (5xx, 429) is not kept: the claim is released instead.

`run_once(credential, key, fn)` for sync callers (MCP tools), `arun_once` for async
ones; crosstalk.middleware applies it to every POST under /api/v1/ with the header."""

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from chats.models import IdempotentAnswer
from chats.refusals import Refusal

type Answer = tuple[int, object]

KEEP_FOR = timedelta(hours=24)
# Longer than the longest waiting call (45 s): a racer waits for the first one's answer.
WAIT_FOR_FIRST_SECONDS = 60
# A claim still unanswered after this long belongs to a process that died.
ABANDONED_AFTER = timedelta(seconds=120)
POLL_SECONDS = 0.05
MAX_KEY_LENGTH = 255


def credential_digest(credential: str) -> str:
    # Not the token table's digest: a leaked row here must not name a token there.
    return hashlib.sha256(f"idempotency:{credential}".encode()).hexdigest()


def check_key(key: str) -> None:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable() or not key.isascii():
        raise Refusal(
            "invalid_input", f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} printable ASCII."
        )


def run_once(credential: str, key: str, fn: Callable[[], Answer], *, request: str = "") -> Answer:
    """fn() → (status, body), run at most once per (credential, key) in 24 h.

    `request` identifies what was asked (method, path, body): the same key for a
    different request is refused (idempotency_key_reused) rather than replayed."""
    deadline = time.monotonic() + WAIT_FOR_FIRST_SECONDS
    while (found := look(credential, key, request)) is None:
        past(deadline)
        time.sleep(POLL_SECONDS)
    record, mine = found
    if not mine:
        return record.status, json.loads(record.body)
    try:
        answer = fn()
    except BaseException:
        release(record)
        raise
    return keep(record, answer)


async def arun_once(
    credential: str, key: str, fn: Callable[[], Awaitable[Answer]], *, request: str = ""
) -> Answer:
    """run_once for a coroutine; the wait for a first request's answer holds no thread."""
    deadline = time.monotonic() + WAIT_FOR_FIRST_SECONDS
    while (found := await sync_to_async(look)(credential, key, request)) is None:
        past(deadline)
        await asyncio.sleep(POLL_SECONDS)
    record, mine = found
    if not mine:
        return record.status, json.loads(record.body)
    try:
        answer = await fn()
    except BaseException:
        await sync_to_async(release)(record)
        raise
    return await sync_to_async(keep)(record, answer)


def look(credential: str, key: str, request: str) -> tuple[IdempotentAnswer, bool] | None:
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
    return None


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
    if record.created_at < now - KEEP_FOR:
        return True
    return record.status is None and record.created_at < now - ABANDONED_AFTER


def forget(record: IdempotentAnswer | None) -> None:
    if record is not None:
        IdempotentAnswer.objects.filter(pk=record.pk, created_at=record.created_at).delete()


def keep(record: IdempotentAnswer, answer: Answer) -> Answer:
    status, body = answer
    if status >= 500 or status == 429:
        release(record)  # worth retrying: the next try runs again
        return answer
    record.status, record.body = status, json.dumps(body, cls=DjangoJSONEncoder)
    record.save(update_fields=["status", "body"])
    return answer


def release(record: IdempotentAnswer) -> None:
    IdempotentAnswer.objects.filter(pk=record.pk, status__isnull=True).delete()


def do_delete_old_answers(now) -> int:
    """Answers past their 24 h (the runners' lease rounds call this)."""
    return IdempotentAnswer.objects.filter(created_at__lt=now - KEEP_FOR).delete()[0]
