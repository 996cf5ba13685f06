"""The answer queue, whole: a finished turn of an outside chat queues its final text in the
turn's end transaction, and the loop every turn runner starts (agents.runner, its one start
site) sends what is due, at least once, retrying with back-off (docs/origins.md).

Not django.tasks: django-tasks-db 0.13's worker marks a task RUNNING with no lease, so a task
whose worker is killed mid-send stays RUNNING and is never tried again, and a failed task is
final (no retry, no back-off). Here a claim is a lease (CLAIM_SECONDS) and a failure is
retried; the receiver drops a repeat by its stable delivery id."""

import asyncio
import logging
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from chats.models import Turn
from kernel import events
from origins.connectors import for_kind
from origins.models import OriginReply
from origins.selectors import answered_request
from peers.actions.record import record
from peers.models import Activity

logger = logging.getLogger(__name__)
NO_FINAL_TEXT = "(The agent finished its turn without a final text.)"
FAILED_TURN = "(The agent could not finish this request; its person can see why.)"
# A claimed reply is left alone this long by other loops while one sends it.
CLAIM_SECONDS = 120
FIRST_DELAY_SECONDS = 10
MOST_DELAY_SECONDS = 3600
BATCH = 20


def note_turn_finished(turn: Turn, final_text: str) -> OriginReply | None:
    """Called once from inside the turn-end transaction: the answer is recorded with the
    turn's end (a crash right after loses neither), and its push leaves after commit."""
    thread = answered_request(turn)
    if thread is None:
        return None
    now = timezone.now()
    reply = OriginReply.objects.create(
        thread=thread,
        text=final_text.strip() or NO_FINAL_TEXT,
        next_attempt_at=now,
        created_at=now,
    )
    events.publish(thread.origin.user_id, "chat", chat=turn.chat_id)
    return reply


def send_due_replies(now=None) -> int:
    """Try every reply that is due; returns how many were tried (tests drive this)."""
    now = now or timezone.now()
    due = claim_due(now)
    for reply in due:
        record_attempt(reply, attempt(reply), now)
    return len(due)


async def send_due_replies_async(now=None) -> int:
    """The same for the runner's loop: the database in its one thread, the sending in
    another, so a slow receiver never holds up the turns' queries."""
    now = now or timezone.now()
    due = await sync_to_async(claim_due)(now)
    for reply in due:
        error = await asyncio.to_thread(attempt, reply)
        await sync_to_async(record_attempt)(reply, error, now)
    return len(due)


async def run_reply_loop() -> None:
    """Beside the turns, in every process that runs them (agents.runner starts it)."""
    while True:
        try:
            await send_due_replies_async()
        except Exception:
            logger.exception("Sending answers to origins failed; trying again shortly.")
        await asyncio.sleep(settings.ORIGIN_REPLY_POLL_SECONDS)


def claim_due(now) -> list[OriginReply]:
    with transaction.atomic():
        replies = list(
            OriginReply.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("thread__origin", "thread__chat")
            .filter(state=OriginReply.State.PENDING, next_attempt_at__lte=now)
            .order_by("next_attempt_at", "id")[:BATCH]
        )
        ids = [reply.pk for reply in replies]
        later = now + timedelta(seconds=CLAIM_SECONDS)
        OriginReply.objects.filter(pk__in=ids).update(next_attempt_at=later)
    return replies


def attempt(reply: OriginReply) -> str | None:
    """Send one answer (no database here: the rows came with the claim); its error or None."""
    origin = reply.thread.origin
    try:
        if not origin.enabled:
            raise RuntimeError("the origin is disabled")
        for_kind(origin.kind).send_answer(reply.thread, reply.text)
    except Exception as error:
        logger.info("Answer %s to %s failed: %s", reply.pk, origin.public_id, error)
        return error_line(error)
    return None


def record_attempt(reply: OriginReply, error: str | None, now) -> None:
    if error is None:
        do_reply_sent(reply, now)
    else:
        do_reply_failed(reply, error, now)


def error_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return (f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__)[:300]


def do_reply_sent(reply: OriginReply, now) -> None:
    with transaction.atomic():
        reply.state, reply.sent_at = OriginReply.State.SENT, now
        reply.attempts += 1
        reply.last_error = ""
        if saved(reply, ["state", "sent_at", "attempts", "last_error"]):
            note_answer(reply, "answer sent", now)


def do_reply_failed(reply: OriginReply, error: str, now) -> None:
    with transaction.atomic():
        reply.attempts += 1
        reply.last_error = error
        # A resend (origins.actions.resend) starts a fresh round of tries.
        tries = max(1, reply.attempts - reply.resends * settings.ORIGIN_REPLY_ATTEMPTS)
        if tries >= settings.ORIGIN_REPLY_ATTEMPTS:
            reply.state = OriginReply.State.FAILED
            what = f"answer failed after {reply.attempts} tries: {error}"
        else:
            delay = min(FIRST_DELAY_SECONDS * 2 ** (tries - 1), MOST_DELAY_SECONDS)
            reply.next_attempt_at = now + timedelta(seconds=delay)
            what = f"answer try {reply.attempts} failed: {error}"
        if saved(reply, ["attempts", "last_error", "state", "next_attempt_at"]):
            note_answer(reply, what, now)


def saved(reply: OriginReply, fields: list[str]) -> bool:
    """Written, unless its row is gone (its chat was deleted while it was being sent):
    then there is nothing left to record, and the rest of the batch goes on."""
    values = {name: getattr(reply, name) for name in fields}
    return bool(OriginReply.objects.filter(pk=reply.pk).update(**values))


def note_answer(reply: OriginReply, what: str, now) -> None:
    thread = reply.thread
    origin = thread.origin
    record(
        origin.user_id,
        Activity.Action.ORIGIN,
        chat_id=thread.chat_id,
        detail=f"{origin.get_kind_display()} {what}"[:200],
        now=now,
    )
    events.publish(origin.user_id, "chat", chat=thread.chat_id)
