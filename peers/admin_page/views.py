"""/internal/admin/peers: the limits form and the delivery metrics, staff only.

Everyone else, anonymous included, gets the same 404 as an unknown URL (never a
login redirect), so the page's existence is not revealed. Limits change only
through peers.actions.do_set_limits; the metrics come from peers.metrics."""

from functools import wraps

from django.contrib import messages as flash
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods

from chats.models import Chat
from kernel.api import refusal_response
from kernel.refusals import Refusal
from peers import metrics as peer_metrics
from peers.actions import do_set_limits
from peers.admin_page.charts import all_charts
from peers.admin_page.runners import account_rights, save_runner
from peers.forms import LimitsForm
from peers.limits import NAMES, current_limits, defaults
from peers.models import Activity

PAGE = "peers-admin"  # redirect() reverses it
TEMPLATE = "peers/admin/page.html"
DEFAULT_WINDOW = "day"
HISTORY_SHOWN = 15


def staff_only(view):
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        user = request.user
        if not (user.is_authenticated and user.is_active and user.is_staff):
            raise Http404
        return view(request, *args, **kwargs)

    return wrapper


def chosen_window(request: HttpRequest) -> str | None:
    window = request.GET.get("window", DEFAULT_WINDOW)
    return window if window in peer_metrics.WINDOWS else None


# staff_only first: a non-staff caller learns nothing, not even which methods exist.
@csrf_exempt  # read-only; and see admin_page
@staff_only
@require_GET
def metrics_json(request: HttpRequest) -> HttpResponse:
    window = chosen_window(request)
    if window is None:
        return refusal_response(Refusal("invalid_input", "window: choose hour, day or week."))
    result = peer_metrics.compute(window, now=timezone.now())
    return JsonResponse(result.as_json())


# The CSRF check runs after the staff check: otherwise an outsider's POST would get
# CSRF's 403 here but a 404 from an unknown URL, telling the page apart.
@csrf_exempt
@staff_only
@csrf_protect
@require_http_methods(["GET", "POST"])
def admin_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and ("runner" in request.POST or "lend" in request.POST):
        return save_runner(request, PAGE)
    if request.method == "POST":
        return save_limits(request)
    window = chosen_window(request) or DEFAULT_WINDOW
    if request.htmx:
        return render(request, f"{TEMPLATE}#metrics", metrics_context(window))
    return render_page(request, LimitsForm(initial=limits_values()), window=window)


def save_limits(request: HttpRequest) -> HttpResponse:
    if "reset" in request.POST:
        do_set_limits(defaults(), user=request.user)
        flash.success(request, "Every limit is back to its default.")
        return redirect(PAGE)
    form = LimitsForm(request.POST)
    if form.is_valid():
        try:
            do_set_limits(form.cleaned_data, user=request.user)
        except Refusal as refusal:  # the form checks the same ranges; this is a backstop
            form.add_error(None, refusal.message)
        else:
            flash.success(request, "Limits saved; the next send in every process uses them.")
            return redirect(PAGE)
    return render_page(request, form, window=DEFAULT_WINDOW, status=400)


def limits_values() -> dict[str, int]:
    limits = current_limits()
    return {name: getattr(limits, name) for name in NAMES}


def render_page(request: HttpRequest, form: LimitsForm, *, window: str, status: int = 200):
    context = {
        **metrics_context(window),
        "form": form,
        "accounts": account_rights(),
        "history": Activity.objects.filter(action=Activity.Action.LIMITS)
        .select_related("user")
        .order_by("-created_at", "-id")[:HISTORY_SHOWN],
    }
    return render(request, TEMPLATE, context, status=status)


def metrics_context(window: str) -> dict:
    limits = current_limits()
    result = peer_metrics.compute(window, now=timezone.now(), limits=limits)
    return {
        "metrics": result,
        "charts": all_charts(result),
        "pairs": named_pairs(result, limit=limits.pair_per_window),
        "limits": limits,
        "windows": list(peer_metrics.WINDOWS),
        "window": window,
    }


def named_pairs(result: peer_metrics.Metrics, *, limit: int) -> list[dict]:
    """The busiest pairs with their chats' names (one query), and their peak against the limit."""
    ids = {chat_id for pair in result.busiest_pairs for chat_id in pair.chats}
    chats = Chat.objects.filter(pk__in=ids).select_related("user").in_bulk() if ids else {}
    return [
        {
            "chats": [chats.get(chat_id) or chat_id for chat_id in pair.chats],
            "messages": pair.messages,
            "peak": pair.peak,
            "share": min(round(100 * pair.peak / limit), 100),
            "at_limit": pair.peak >= limit,
        }
        for pair in result.busiest_pairs
    ]
