"""Permissioned reads of origins. Every lookup that misses raises no_origin(): an unknown,
disabled or another account's origin reads exactly like one that never existed."""

import shlex
from pathlib import Path

from django.conf import settings
from django.db.models import Q

from chats.models import Turn
from kernel.refusals import Refusal
from origins.models import A2ATask, Origin, OriginDelivery, OriginReply, OriginThread
from peers.limits import current_limits

TURN_ENDED = {Turn.State.DONE, Turn.State.FAILED, Turn.State.CANCELLED}


def no_origin() -> Refusal:
    return Refusal("not_found", "There is no such origin.")


def get_own_origin(user, public_id: str) -> Origin:
    """The account's origin, enabled or not (its Settings page)."""
    origin = Origin.objects.filter(user=user, public_id=str(public_id)).first()
    if origin is None:
        raise no_origin()
    return origin


def account_origins(user):
    return Origin.objects.filter(user=user).select_related("user")


def get_serving_origin(public_id: str, *, kinds) -> Origin:
    """An origin the outside may call now: one of `kinds`, enabled, of an active account."""
    found = Origin.objects.filter(
        public_id=str(public_id), kind__in=kinds, enabled=True, user__is_active=True
    )
    origin = found.select_related("user").first()
    if origin is None:
        raise no_origin()
    return origin


def get_automation_origin(user, ref: str) -> Origin:
    """An automation origin of the account, by its id or its name."""
    found = Origin.objects.filter(user=user, kind=Origin.Kind.AUTOMATION)
    origin = found.filter(Q(public_id=ref) | Q(name=ref)).first()
    if origin is None:
        raise no_origin()
    return origin


def requests_per_hour(origin: Origin) -> int:
    return origin.requests_per_hour or current_limits().origin_requests_per_hour


def answered_request(turn: Turn) -> OriginThread | None:
    """THE rule of what goes back outside: only a turn that answers a request of the
    chat's origin (its thread's own request, whose delivery names the turn). A turn
    woken by a peer message, a Connect brief, a send-on or the person's prompt keeps
    its final text in Crosstalk. The thread the answer goes to, or None."""
    if not turn.answers_origin:
        return None
    threads = OriginThread.objects.select_related("origin")
    return threads.filter(chat_id=turn.chat_id, origin__deliveries__turn=turn).first()


def get_a2a_task(origin: Origin, task_id: str) -> A2ATask | None:
    return A2ATask.objects.filter(pk=task_id, origin=origin).first()


def a2a_tasks(origin: Origin, *, context_id: str = "", state: int = 0):
    """The origin's A2A tasks, the latest first; `context_id`, `state`: only those."""
    rows = A2ATask.objects.filter(origin=origin).order_by("-updated_at", "-pk")
    if context_id:
        rows = rows.filter(context_id=context_id)
    if state:
        rows = rows.filter(state=state)
    return rows


def turn_outcome(turn_id: int) -> tuple[str, str] | None:
    """(state, text) once the turn an A2A request started has ended, else None."""
    turn = Turn.objects.filter(pk=turn_id).values("state", "final_text", "error").first()
    if turn is None or turn["state"] not in TURN_ENDED:
        return None
    return turn["state"], turn["final_text"] or turn["error"]


def where(origin: Origin) -> str:
    """What the outside source is given: its URL, or for automation the command."""
    if origin.kind == Origin.Kind.A2A:
        return public_url(f"/a2a/{origin.public_id}/")
    if origin.kind == Origin.Kind.AUTOMATION:
        # bin/crosstalk needs no activated venv; --user= keeps a name starting with "-" whole.
        run = Path(settings.BASE_DIR) / "bin" / "crosstalk"
        user = shlex.quote(origin.user.username)
        return f'{run} start_chat --origin {origin.public_id} --user={user} --text "…"'
    return public_url(f"/hooks/in/{origin.public_id}")


def public_url(path: str) -> str:
    """This server's URL for `path`, as the outside reaches it: CROSSTALK_PUBLIC_URL, else
    CROSSTALK_URL (both the admin's), never a request's Host header."""
    base = settings.CROSSTALK_PUBLIC_URL or settings.CROSSTALK_URL
    return base.rstrip("/") + path


def origin_requests(origin: Origin):
    """The origin's accepted requests, newest first, each with the turn that answers it."""
    rows = OriginDelivery.objects.filter(origin=origin).select_related("turn")
    return rows.order_by("-created_at", "-id")


def origin_answers(origin: Origin):
    """The answers going back to the origin, newest first (each reply's chat named)."""
    rows = OriginReply.objects.filter(thread__origin=origin).select_related("thread")
    return rows.order_by("-created_at", "-id")
