"""The /inbox/ page, its "done" form, and the count every page's top bar shows."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.functional import SimpleLazyObject
from django.views.decorators.http import require_POST, require_safe

from crosstalk.inbox.api import mark_done
from crosstalk.inbox.inputs import MarkDone
from crosstalk.inbox.selectors import inbox_count, inbox_items
from kernel.inputs import parse
from kernel.refusals import Refusal

SHOWN = 100


@login_required
@require_safe
def inbox(request: HttpRequest) -> HttpResponse:
    done = request.GET.get("done") == "1"
    items = inbox_items(request.user, limit=SHOWN, offset=0, done=done)
    # htmx: the live list alone (refetched on every hint), with the top bar's counts.
    template = "crosstalk/inbox.html#items" if request.htmx else "crosstalk/inbox.html"
    return render(request, template, {"items": items, "show_done": done})


@login_required
@require_POST
def inbox_done(request: HttpRequest) -> HttpResponse:
    """Done: one item (`items`) or every waiting one (`all`); another account's item,
    or one that does not exist, is a 404 like a missing page."""
    data = {"items": request.POST.getlist("items"), "all": request.POST.get("all") == "1"}
    try:
        mark_done(request.user, parse(MarkDone, data))
    except Refusal as refusal:
        raise Http404(refusal.message) from None
    return redirect("inbox")


def inbox_context(request: HttpRequest) -> dict:
    """The top bar's count, on every page (one query, run only when a page shows it)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"inbox_count": 0}
    return {"inbox_count": SimpleLazyObject(lambda: inbox_count(user))}
