"""Settings → Origins (/settings/origins/): add, edit, disable, delete an origin, see its
URL, regenerate its secret and send it a signed test request. Another account's origin
answers 404 on every route (origins.selectors)."""

import httpx
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from chats.inputs import parse
from chats.refusals import Refusal
from origins import configure
from origins.actions import requests_per_hour
from origins.connectors import HOOK_KINDS, for_kind
from origins.forms import OriginForm, initial_for
from origins.inputs import OriginSpec
from origins.models import Origin
from origins.selectors import get_own_origin

TEMPLATE = "origins/settings.html"
TEST_TIMEOUT_SECONDS = 10


def where(request, origin: Origin) -> str:
    """What the outside source is given: its URL, or for automation the command."""
    if origin.kind == Origin.Kind.A2A:
        return request.build_absolute_uri(f"/a2a/{origin.public_id}/")
    if origin.kind == Origin.Kind.AUTOMATION:
        user = origin.user.username
        return f'python manage.py start_chat --origin {origin.public_id} --user {user} --text "…"'
    return request.build_absolute_uri(f"/hooks/in/{origin.public_id}")


def render_page(request, *, status: int = 200, **context) -> HttpResponse:
    origins = list(Origin.objects.filter(user=request.user).select_related("user"))
    for origin in origins:
        origin.where = where(request, origin)
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
        origin = configure.check_create_origin(request.user, spec=spec)
    except Refusal as refusal:
        form.add_error(None, refusal.message)
        return render_page(request, form=form, status=400)
    return render_page(request, new_origin=origin, new_secret=origin.secret)


@login_required
def edit_origin(request, public_id: str) -> HttpResponse:
    origin = get_own_origin(request.user, public_id)
    if request.method != "POST":
        form = OriginForm(initial=initial_for(origin))
        return render(request, "origins/edit.html", {"origin": origin, "form": form})
    form = OriginForm(request.POST)
    spec = judged(request, form)
    try:
        if spec is not None:
            configure.check_update_origin(request.user, origin, spec=spec)
            return redirect("origin-settings")
    except Refusal as refusal:
        form.add_error(None, refusal.message)
    return render(request, "origins/edit.html", {"origin": origin, "form": form}, status=400)


@require_POST
@login_required
def toggle_origin(request, public_id: str) -> HttpResponse:
    origin = get_own_origin(request.user, public_id)
    configure.do_set_enabled(origin, enabled=not origin.enabled)
    return redirect("origin-settings")


@never_cache
@require_POST
@login_required
def regenerate_secret(request, public_id: str) -> HttpResponse:
    origin = get_own_origin(request.user, public_id)
    secret = configure.do_regenerate_secret(origin)
    return render_page(request, new_origin=origin, new_secret=secret)


@require_POST
@login_required
def delete_origin(request, public_id: str) -> HttpResponse:
    configure.do_delete_origin(get_own_origin(request.user, public_id))
    return redirect("origin-settings")


@require_POST
@login_required
def test_origin(request, public_id: str) -> HttpResponse:
    origin = get_own_origin(request.user, public_id)
    result = send_test_request(request, origin)
    return render_page(request, tested=origin, test_result=result)


def send_test_request(request, origin: Origin) -> str:
    """A signed request to the origin's own URL, over HTTP, as the outside would send it:
    the connector's test_request(origin) gives its headers and body (none: no test)."""
    try:
        connector = for_kind(origin.kind) if origin.kind in HOOK_KINDS else None
    except LookupError:
        connector = None
    maker = getattr(connector, "test_request", None)
    if maker is None:
        return "No test request for this kind: send one from the outside source itself."
    headers, body = maker(origin)
    url = request.build_absolute_uri(f"/hooks/in/{origin.public_id}")
    try:
        response = httpx.post(url, content=body, headers=headers, timeout=TEST_TIMEOUT_SECONDS)
    except httpx.HTTPError as error:
        return f"Could not reach {url}: {error}"
    return f"{url} answered {response.status_code}: {response.text[:300]}"
