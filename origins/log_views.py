"""An origin's delivery log (/settings/origins/<id>/log/): the requests it accepted, each
with its chat and turn, and the answers going back with their state, tries and last
error; Resend on a failed answer (origins.actions.resend: once, however often clicked).
Another account's origin answers 404, as on every origin page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from kernel.refusals import Refusal
from origins import actions
from origins.selectors import origin_answers, origin_requests
from origins.settings_views import origin_or_404

SHOWN = 50


@login_required
def origin_log(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    context = {
        "origin": origin,
        "requests": origin_requests(origin)[:SHOWN],
        "answers": origin_answers(origin).select_related("thread__chat")[:SHOWN],
    }
    return render(request, "origins/log.html", context)


@require_POST
@login_required
def resend_answer(request, public_id: str, answer_id: int) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    try:
        reply = actions.check_resend_answer(origin, answer_id)
        messages.success(request, f"Answer {reply.pk} is queued: it is sent again shortly.")
    except Refusal as refusal:
        messages.error(request, refusal.message)
    return redirect("origin-log", public_id=origin.public_id)
