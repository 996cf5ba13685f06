"""Settings → Origins (/settings/origins/): add, edit, disable, delete an origin, see its
URL, regenerate its secret and send it a signed test request. Another account's origin
answers 404 on every route (origins.selectors).

Post, redirect, get: every POST answers a redirect, so a reload never sends it again.
What the next page shows comes through the session: the id of an origin whose secret is
shown this once (read from its row, never copied into the session), a test's result, or
a refused form's fields (secrets left out) with its errors."""

import httpx
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms.utils import ErrorDict
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from kernel.refusals import Refusal
from origins import actions
from origins.connectors import HOOK_KINDS, for_kind
from origins.forms import OriginForm, initial_for
from origins.models import Origin
from origins.selectors import (
    account_origins,
    get_own_origin,
    public_url,
    requests_per_hour,
    where,
)

TEMPLATE = "origins/settings.html"
TEST_TIMEOUT_SECONDS = 10
SHOW_SECRET, TESTED, REFUSED = "origin_secret_once", "origin_tested", "origin_refused"


def refused_form(request, key: str, **options) -> OriginForm | None:
    """The form a POST refused, shown again with its errors (once), or None."""
    kept = request.session.pop(REFUSED, None)
    if not kept or kept.get("key") != key:
        return None
    form = OriginForm(kept["data"], **options)
    form.full_clean()  # the values as typed, then exactly the errors the POST had
    form._errors = ErrorDict(
        {
            field or NON_FIELD_ERRORS: form.error_class(errors)
            for field, errors in kept["errors"].items()
        }
    )
    return form


def keep_refused(request, key: str, form: OriginForm) -> None:
    request.session[REFUSED] = {"key": key, "data": form.kept_data(), "errors": form.kept_errors()}


@never_cache  # a secret may be on it, this once
@login_required
def origins_page(request) -> HttpResponse:
    origins = list(account_origins(request.user))
    for origin in origins:
        origin.where = where(origin)
        origin.limit = requests_per_hour(origin)
    shown = request.session.pop(SHOW_SECRET, None)
    tested = request.session.pop(TESTED, None) or {}
    form = refused_form(request, "new") or OriginForm(initial={"enabled": True})
    context = {
        "origins": origins,
        "form": form,
        "new_origin": next((o for o in origins if o.public_id == shown), None),
        "tested": tested.get("origin"),
        "test_result": tested.get("result"),
    }
    return render(request, TEMPLATE, context)


def back_to_list(anchor: str = "") -> HttpResponse:
    return redirect(reverse("origin-settings") + (f"#{anchor}" if anchor else ""))


@require_POST
@login_required
def create_origin(request) -> HttpResponse:
    form = OriginForm(request.POST)
    try:
        spec = form.judge()
        if spec is not None:
            origin = actions.check_create_origin(request.user, spec=spec)
            request.session[SHOW_SECRET] = origin.public_id
            return back_to_list("new-secret")
    except Refusal as refusal:
        form.refused(refusal)
    keep_refused(request, "new", form)
    return back_to_list("new-origin")


def origin_or_404(request, public_id: str) -> Origin:
    try:
        return get_own_origin(request.user, public_id)
    except Refusal:
        # Another account's origin reads exactly like a missing one, as a page.
        raise Http404("No such origin.") from None


@login_required
def edit_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    if request.method == "POST":
        return save_origin(request, origin)
    form = refused_form(request, origin.public_id, fixed_kind=origin.kind)
    form = form or OriginForm(initial=initial_for(origin), fixed_kind=origin.kind)
    context = {"origin": origin, "form": form}
    return render(request, "origins/edit.html", context)


def save_origin(request, origin: Origin) -> HttpResponse:
    form = OriginForm(request.POST, fixed_kind=origin.kind)
    try:
        spec = form.judge()
        if spec is not None:
            actions.check_update_origin(request.user, origin, spec=spec)
            return back_to_list(f"origin-{origin.public_id}")
    except Refusal as refusal:
        form.refused(refusal)
    keep_refused(request, origin.public_id, form)
    return redirect("origin-edit", public_id=origin.public_id)


@require_POST
@login_required
def toggle_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    actions.do_set_enabled(origin, enabled=not origin.enabled)
    return back_to_list(f"origin-{origin.public_id}")


@require_POST
@login_required
def regenerate_secret(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    actions.do_regenerate_secret(origin)
    request.session[SHOW_SECRET] = origin.public_id
    return back_to_list("new-secret")


@require_POST
@login_required
def delete_origin(request, public_id: str) -> HttpResponse:
    actions.do_delete_origin(origin_or_404(request, public_id))
    return back_to_list()


@require_POST
@login_required
def test_origin(request, public_id: str) -> HttpResponse:
    origin = origin_or_404(request, public_id)
    result = send_test_request(origin)
    request.session[TESTED] = {"origin": origin.public_id, "result": result}
    return back_to_list(f"origin-{origin.public_id}")


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
