"""/internal/admin/peers: staff only (everyone else gets an unknown URL's 404), the
limits form with its validation and history, metrics.json, a constant query count."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from peers.forms import bounds
from peers.limits import NAMES, current_limits, defaults
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.test_admin_metrics import Builder

ROUTES = [
    "/internal/admin/peers",
    "/internal/admin/peers/",
    "/internal/admin/peers/metrics.json",
    "/internal/admin/peers/metrics.json/",
]


@pytest.fixture
def admin(db):
    return User.objects.create_user("root", password="root-password-1", is_staff=True)


@pytest.fixture
def admin_client(admin):
    client = Client()
    client.force_login(admin)
    return client


@pytest.mark.parametrize("route", ROUTES)
def test_it_answers_everyone_but_staff_like_an_unknown_url(route, owner_client):
    anonymous = Client()
    unknown = anonymous.get("/internal/admin/no-such-page")
    assert unknown.status_code == 404
    for client in (anonymous, owner_client):
        for response in (client.get(route), client.post(route, {"chat_per_hour": 1})):
            assert response.status_code == 404
            assert response.content == unknown.content
            assert "Location" not in response
    assert current_limits().chat_per_hour == defaults()["chat_per_hour"]


@pytest.mark.parametrize("route", ROUTES)
def test_it_answers_a_post_without_csrf_token_like_an_unknown_url(route, owner):
    anonymous, member = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    member.force_login(owner)
    unknown = anonymous.post("/internal/admin/no-such-page", {"chat_per_hour": 1})
    for client in (anonymous, member):
        response = client.post(route, {"chat_per_hour": 1})
        assert response.status_code == 404 and response.content == unknown.content


def test_it_still_checks_csrf_for_staff(admin):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    assert client.post("/internal/admin/peers", form_data(chat_per_hour=5)).status_code == 403
    assert current_limits().chat_per_hour == 30


def test_it_hides_the_page_from_a_staff_account_turned_inactive(admin, admin_client):
    User.objects.filter(pk=admin.pk).update(is_active=False)
    assert admin_client.get("/internal/admin/peers").status_code == 404


@pytest.mark.parametrize("route", ROUTES)
def test_it_serves_staff_with_or_without_the_slash(route, admin_client):
    response = admin_client.get(route)
    assert response.status_code == 200


def test_it_links_the_page_from_the_top_bar_for_staff_only(admin_client, owner_client):
    assert b'href="/internal/admin/peers"' in admin_client.get("/chats/").content
    assert b"/internal/admin/peers" not in owner_client.get("/chats/").content


def test_it_answers_metrics_json_in_the_contracts_shape(admin_client, sender, recipient):
    response = admin_client.get("/internal/admin/peers/metrics.json?window=hour")
    body = response.json()
    assert set(body) == {
        "window",
        "since",
        "sent",
        "by_state",
        "refusals",
        "paths",
        "not_delivered",
        "wakes",
        "busiest_pairs",
    }
    assert body["window"] == "hour"
    assert set(body["paths"]) == {
        "between_steps",
        "as_finished",
        "waiting_call",
        "turn_prompt",
        "inbox",
        "tool_result",
    }
    for window in ("day", "week"):
        answer = admin_client.get(f"/internal/admin/peers/metrics.json?window={window}")
        assert answer.json()["window"] == window
    refused = admin_client.get("/internal/admin/peers/metrics.json?window=year")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_input"


def form_data(**changes) -> dict:
    return {**defaults(), **changes}


BAD_VALUES = ["", "abc", "1.5", "-1"]


@pytest.mark.parametrize("name", NAMES)
def test_it_refuses_each_field_out_of_range_and_saves_nothing(name, admin_client):
    low, high = bounds(name)
    other = "max_text" if name != "max_text" else "chat_per_hour"
    for bad in [*BAD_VALUES, low - 1, high + 1]:
        data = form_data(**{other: defaults()[other] + 1, name: bad})
        response = admin_client.post("/internal/admin/peers", data)
        assert response.status_code == 400, bad
        page = response.content.decode()
        assert f'id="{name}-error"' in page
        assert f"Enter a whole number from {low:,} to {high:,}." in page
        assert page.count('class="error small"') == 1  # only that field
    assert getattr(current_limits(), other) == defaults()[other]
    assert not Activity.objects.filter(action="limits").exists()


def test_it_accepts_each_fields_bounds(admin_client):
    lowest = {name: bounds(name)[0] for name in NAMES}
    assert admin_client.post("/internal/admin/peers", lowest).status_code == 302
    limits = current_limits()
    assert all(getattr(limits, name) == value for name, value in lowest.items())
    highest = {name: bounds(name)[1] for name in NAMES}
    assert admin_client.post("/internal/admin/peers", highest).status_code == 302
    assert current_limits().max_text == highest["max_text"]


def test_it_saves_through_the_action_naming_the_admin_and_both_values(admin, admin_client):
    response = admin_client.post("/internal/admin/peers", form_data(chat_per_hour=45))
    assert response.status_code == 302 and response["Location"] == "/internal/admin/peers"
    assert current_limits().chat_per_hour == 45
    row = Activity.objects.get(action="limits")
    assert row.user_id == admin.pk
    assert row.detail == "chat_per_hour=45 (was 30)"
    page = admin_client.get("/internal/admin/peers").content.decode()
    assert "chat_per_hour=45 (was 30)" in page and "root" in page


def test_it_resets_every_limit_to_its_default(admin_client):
    admin_client.post("/internal/admin/peers", form_data(chat_per_hour=5, max_text=100))
    response = admin_client.post("/internal/admin/peers", {"reset": "1"})
    assert response.status_code == 302
    limits = current_limits()
    assert all(getattr(limits, name) == value for name, value in defaults().items())
    details = set(Activity.objects.filter(action="limits").values_list("detail", flat=True))
    assert {"chat_per_hour=30 (was 5)", "max_text=8000 (was 100)"} <= details


def test_it_shows_each_limit_with_its_default_and_what_it_stops(admin_client):
    admin_client.post("/internal/admin/peers", form_data(pair_per_window=3))
    page = admin_client.get("/internal/admin/peers").content.decode()
    for name in NAMES:
        assert f'name="{name}"' in page
    assert 'name="pair_per_window" value="3"' in page
    assert "Stops two chats bouncing messages" in page
    assert "Reset to defaults" in page


def test_it_refreshes_the_metrics_as_a_partial(admin_client):
    response = admin_client.get("/internal/admin/peers?window=week", headers={"HX-Request": "true"})
    page = response.content.decode()
    assert page.lstrip().startswith('<section id="admin-metrics"')
    assert 'hx-trigger="every 5s"' in page and "window=week" in page
    assert "<form" not in page


def add_messages(owner, count: int, start: int) -> None:
    build = Builder(timezone.now())
    chats = [make_chat(owner, f"bulk-{start}-{i}", peers=True) for i in range(4)]
    for i in range(count):
        sender, to = chats[i % 4], chats[(i + 1) % 4]
        build.message(sender, to, ago=timedelta(minutes=i % 50), path="inbox", latency=i % 7)
        build.message(sender, to, ago=timedelta(minutes=i % 50), state="not_delivered")
        build.refusal(sender, "limit_chat_hour", ago=timedelta(minutes=1))


def test_it_runs_the_same_queries_however_many_messages(owner, admin_client):
    def queries(window: str, htmx: bool) -> int:
        headers = {"HX-Request": "true"} if htmx else {}
        with CaptureQueriesContext(connection) as captured:
            response = admin_client.get(f"/internal/admin/peers?window={window}", headers=headers)
        assert response.status_code == 200
        return len(captured)

    add_messages(owner, 2, start=0)
    few = [queries("hour", False), queries("week", True)]
    add_messages(owner, 120, start=1)
    assert PeerMessage.objects.count() > 200
    assert [queries("hour", False), queries("week", True)] == few
    # A sanity cap (one is the top bar's inbox count); what matters is that it does not grow.
    assert few[0] <= 17


def test_it_opens_to_an_account_made_by_createsuperuser(db, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "root-password-1")
    call_command("createsuperuser", "--noinput", username="root", email="", stdout=StringIO())
    client = Client()
    assert client.login(username="root", password="root-password-1")
    assert client.get("/internal/admin/peers").status_code == 200


def test_it_says_how_to_make_an_admin_when_seeding_the_demo(db):
    out = StringIO()
    call_command("seed_demo", stdout=out)
    assert "/internal/admin/peers" in out.getvalue() and "createsuperuser" in out.getvalue()
