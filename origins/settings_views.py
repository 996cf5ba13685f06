"""Settings → Origins (/settings/origins/): add, edit, disable, delete an origin, see its
URL, regenerate its secret and send it a signed test request. Another account's origin
answers 404 on every route (origins.selectors)."""

import httpx
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from kernel.inputs import parse
from kernel.refusals import Refusal
from origins import actions
from origins.connectors import HOOK_KINDS, for_kind
from origins.forms import OriginForm, initial_for
from origins.inputs import OriginSpec
from origins.models import Origin
from origins.selectors import account_origins, get_own_origin, public_url, requests_per_hour

TEMPLATE = "origins/settings.html"
TEST_TIMEOUT_SECONDS = 10


def where(origin: Origin) -> str:
    """What the outside source is given: its URL, or for automation the command."""
    if origin.kind == Origin.Kind.A2A:
        return public_url(f"/a2a/{origin.public_id}/")
    if origin.kind == Origin.Kind.AUTOMATION:
        user = origin.user.username
        return f'python manage.py start_chat --origin {origin.public_id} --user {user} --text "…"'
    return public_url(f"/hooks/in/{origin.public_id}")


def render_page(request, *, status: int = 200, **context) -> HttpResponse:
    origins = list(account_origins(request.user))
    for origin in origins:
        origin.where = where(origin)
        origin.limit = requests_per_hour(origin)
    context.setdefault("form", OriginForm(initial={"enabled": True}))
    return render(request, TEMPLATE, {"origins": origins, **context}, status=status)


@login_required
def origins_page(request) -> HttpResponse:
    return render_page(request)


def judged(request, form: OriginForm) -> OriginSpec | None:
    """The form's fields as the shared input model; errors go beside the form."""
    if not form.is_valid():
        return None
    try:
        return parse(OriginSpec, form.spec_data())
    except Refusal as refusal:
        form.add_error(None, refusal.message)
        return None


# The new secret is rendered into this one response and never shown again.
@never_cache
@require_POST
@login_required
def create_origin(request) -> HttpResponse:
    form = OriginForm(request.POST)
    spec = judged(request, form)
    if spec is None:
        return render_page(request, form=form, status=400)
    try:
        origin = actions.check_create_origin(request.user, spec=spec)
    except Refusal as refusal:
        form.add_error(None, refusal.message)
        return render_page(request, form=form, status=400)
    return render_page(request, new_origin=origin, new_secret=origin.secret)


def origin_or_404(request, public_id: str) -> Origin:
    try:
        return get_own_origin(request.user, public_id)
    except Refusal:
        # Another account's origin reads exactly like a missing one, as a page.
        raise Http404("No such origin.") from None


@login_required
def edit_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    if request.method != "POST":
        form = OriginForm(initial=initial_for(origin))
        return render(request, "origins/edit.html", {"origin": origin, "form": form})
    form = OriginForm(request.POST)
    spec = judged(request, form)
    try:
        if spec is not None:
            actions.check_update_origin(request.user, origin, spec=spec)
            return redirect("origin-settings")
    except Refusal as refusal:
        form.add_error(None, refusal.message)
    return render(request, "origins/edit.html", {"origin": origin, "form": form}, status=400)


@require_POST
@login_required
def toggle_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    actions.do_set_enabled(origin, enabled=not origin.enabled)
    return redirect("origin-settings")


@never_cache
@require_POST
@login_required
def regenerate_secret(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    secret = actions.do_regenerate_secret(origin)
    return render_page(request, new_origin=origin, new_secret=secret)


@require_POST
@login_required
def delete_origin(request, public_id: str) -> HttpResponse:
    actions.do_delete_origin(origin_or_404(request, public_id))
    return redirect("origin-settings")


@require_POST
@login_required
def test_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    result = send_test_request(origin)
    return render_page(request, tested=origin, test_result=result)


def send_test_request(origin: Origin) -> str:
    """A signed request to the origin's own URL, over HTTP, as the outside would send it:
    the connector's test_request(origin) gives its headers and body (none: no test).

    A deliberate call to this server at the address its admin configured (often loopback,
    so not through origins.outbound's public-only guard); nothing in the request, its Host
    header least of all, chooses where it goes, and no redirect is followed."""
    try:
        connector = for_kind(origin.kind) if origin.kind in HOOK_KINDS else None
    except LookupError:
        connector = None
    maker = getattr(connector, "test_request", None)
    if maker is None:
        return "No test request for this kind: send one from the outside source itself."
    headers, body = maker(origin)
    url = public_url(f"/hooks/in/{origin.public_id}")
    try:
        with httpx.Client(timeout=TEST_TIMEOUT_SECONDS, trust_env=False) as client:
            response = client.post(url, content=body, headers=headers)
    except httpx.HTTPError as error:
        return f"Could not reach {url}: {error}"
    return f"{url} answered {response.status_code}: {response.text[:300]}"
