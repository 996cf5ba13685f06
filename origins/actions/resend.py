"""The person sends a failed answer again (the origin's delivery log, REST, MCP).

Idempotent: only a failed answer moves back to pending, in one conditional UPDATE, so a
double click (or two tabs, or a retried call) queues it once; the second call finds it
pending and answers the same. The limits hold: a disabled origin sends nothing, each
resend allows settings.ORIGIN_REPLY_ATTEMPTS more tries, and at most MOST_RESENDS."""

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from kernel.refusals import Refusal
from origins.actions.answers import note_answer
from origins.models import Origin, OriginReply

MOST_RESENDS = 3


def no_answer() -> Refusal:
    return Refusal("not_found", "There is no such answer of this origin.")


def check_resend_answer(origin: Origin, answer_id: int) -> OriginReply:
    """`origin` is the caller's own (origins.selectors.get_own_origin)."""
    if not 0 < answer_id < 2**63:
        raise no_answer()
    replies = OriginReply.objects.select_related("thread__origin")
    reply = replies.filter(pk=answer_id, thread__origin=origin).first()
    if reply is None:
        raise no_answer()
    if reply.state == OriginReply.State.PENDING:
        return reply  # already queued (a second click): nothing more
    if reply.state == OriginReply.State.SENT:
        raise Refusal("already_sent", "This answer was sent; there is nothing to resend.")
    if not origin.enabled:
        raise Refusal("origin_disabled", "Enable the origin first: a disabled one sends nothing.")
    if reply.resends >= MOST_RESENDS:
        raise Refusal(
            "limit_resends", f"An answer is sent again at most {MOST_RESENDS} times; not again."
        )
    return do_resend_answer(reply)


def do_resend_answer(reply: OriginReply) -> OriginReply:
    now = timezone.now()
    with transaction.atomic():
        queued = OriginReply.objects.filter(pk=reply.pk, state=OriginReply.State.FAILED).update(
            state=OriginReply.State.PENDING, next_attempt_at=now, resends=F("resends") + 1
        )
        reply.refresh_from_db()
        if queued:
            note_answer(reply, "answer queued again by its person", now)
    return reply
