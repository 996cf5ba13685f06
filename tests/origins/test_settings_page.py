"""Settings → Origins: the person adds, edits, disables, deletes an origin; another account
gets 404 everywhere."""

import tempfile

import pytest
from django.test import Client

from origins.models import Origin
from tests.origins.conftest import make_origin, post_hook, signed

pytestmark = pytest.mark.django_db

NEW = {
    "kind": "webhook",
    "name": "ci",
    "enabled": "on",
    "agent": "demo",
    "callback_url": "https://example.test/answers",
}


def test_it_adds_an_origin_and_shows_its_secret_once_with_its_url(owner_client, owner):
    posted = owner_client.post("/settings/origins/new/", NEW)
    assert posted.status_code == 302 and posted["Location"] == "/settings/origins/#new-secret"
    response = owner_client.get("/settings/origins/")
    origin = Origin.objects.get(user=owner)
    page = response.content.decode()
    assert origin.secret in page and f"/hooks/in/{origin.public_id}" in page
    assert origin.settings == {"callback_url": "https://example.test/answers"}
    again = owner_client.get("/settings/origins/").content.decode()
    assert origin.secret not in again and f"/hooks/in/{origin.public_id}" in again
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"callback_url": ""}, "callback_url"),
        ({"callback_url": "file:///etc/passwd"}, "https://"),
        ({"callback_url": "-x"}, "https://"),
        ({"agent": "command"}, "needs the command line"),
        ({"agent": "codex", "folder": tempfile.gettempdir()}, "run"),
        ({"name": "bad\x00name"}, "Null characters"),
        ({"name": "x" * 81}, "80"),
        ({"requests_per_hour": "0"}, "At least 1."),
        ({"requests_per_hour": "many"}, "A whole number"),
        ({"name": ""}, "Fill this in."),
        ({"kind": "nope"}, "Pick one of the choices."),
    ],
)
def test_it_refuses_a_bad_origin_with_the_reason(owner_client, change, says):
    posted = owner_client.post("/settings/origins/new/", {**NEW, **change})
    assert posted.status_code == 302 and posted["Location"].endswith("#new-origin")
    page = owner_client.get("/settings/origins/").content.decode()
    assert says in page and "Value error" not in page and "errorlist" in page
    assert not Origin.objects.exists()
    assert "errorlist" not in owner_client.get("/settings/origins/").content.decode()  # once


def test_it_a_taken_name_is_refused(owner_client, owner):
    make_origin(owner, "ci")
    owner_client.post("/settings/origins/new/", NEW)
    response = owner_client.get("/settings/origins/")
    assert "already have an origin" in response.content.decode()


def test_it_editing_keeps_the_kind_and_the_stored_tokens(owner_client, owner):
    origin = make_origin(owner, "gh", kind="github", settings={"handle": "bot", "token": "t0k"})
    form = {**NEW, "kind": "github", "name": "gh2", "handle": "crosstalk-bot"}
    response = owner_client.post(f"/settings/origins/{origin.public_id}/", form)
    assert response.status_code == 302, response.content
    origin.refresh_from_db()
    assert origin.name == "gh2" and origin.settings["token"] == "t0k"
    assert origin.settings["handle"] == "crosstalk-bot"
    changed = owner_client.post(f"/settings/origins/{origin.public_id}/", {**form, "kind": "slack"})
    assert changed.status_code == 302
    shown = owner_client.get(f"/settings/origins/{origin.public_id}/")
    assert "keeps its kind" in shown.content.decode()


def test_it_disabling_makes_its_url_answer_404_and_enabling_brings_it_back(owner_client, origin):
    owner_client.post(f"/settings/origins/{origin.public_id}/enabled/")
    assert post_hook(Client(), origin, *signed(origin, {"text": "x"})).status_code == 404
    owner_client.post(f"/settings/origins/{origin.public_id}/enabled/")
    assert post_hook(Client(), origin, *signed(origin, {"text": "x"})).status_code == 202


def test_it_a_new_secret_replaces_the_old_one_at_once(owner_client, origin):
    old = origin.secret
    assert owner_client.post(f"/settings/origins/{origin.public_id}/secret/").status_code == 302
    response = owner_client.get("/settings/origins/")
    origin.refresh_from_db()
    assert origin.secret != old and origin.secret in response.content.decode()
    assert (
        post_hook(Client(), origin, *signed(origin, {"text": "x"}, secret=old)).status_code == 401
    )
    assert post_hook(Client(), origin, *signed(origin, {"text": "x"})).status_code == 202


def test_it_deleting_keeps_the_chats_it_started(owner_client, origin):
    started = post_hook(Client(), origin, *signed(origin, {"text": "x"})).json()["chat"]
    owner_client.post(f"/settings/origins/{origin.public_id}/delete/")
    assert not Origin.objects.exists()
    assert owner_client.get(f"/chats/{started}/").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/"),
        ("post", "/"),
        ("post", "/enabled/"),
        ("post", "/secret/"),
        ("post", "/delete/"),
        ("post", "/test/"),
    ],
)
def test_it_another_accounts_origin_answers_404_everywhere(outsider_client, origin, method, path):
    missing = getattr(outsider_client, method)(f"/settings/origins/org_missing{path}", NEW)
    response = getattr(outsider_client, method)(f"/settings/origins/{origin.public_id}{path}", NEW)
    assert response.status_code == missing.status_code == 404
    fresh = Origin.objects.get(pk=origin.pk)
    assert (fresh.name, fresh.enabled, fresh.secret) == (origin.name, True, origin.secret)


def test_it_the_list_shows_only_the_accounts_own_origins(outsider_client, origin):
    page = outsider_client.get("/settings/origins/").content.decode()
    assert origin.public_id not in page and "No origins yet" in page


def test_it_the_settings_page_links_to_origins(owner_client):
    assert "/settings/origins/" in owner_client.get("/settings/").content.decode()


def test_it_an_outside_chat_shows_its_origin_and_answer_state_in_header_and_card(
    owner_client, origin
):
    from django.utils import timezone

    from chats.models import Chat
    from origins.models import OriginReply

    chat_id = post_hook(Client(), origin, *signed(origin, {"text": "x", "thread": "T-9"})).json()[
        "chat"
    ]
    chat = Chat.objects.get(pk=chat_id)
    OriginReply.objects.create(
        thread=chat.origin_thread,
        text="done",
        attempts=2,
        last_error="RuntimeError: https://example.test answered 503",
        next_attempt_at=timezone.now(),
        created_at=timezone.now(),
    )
    page = owner_client.get(f"/chats/{chat_id}/").content.decode()
    assert "From Webhook" in page and "T-9" in page and "“ci”" in page
    assert "Its last answer: pending after 2 tries — RuntimeError" in page
    cards = owner_client.get("/chats/").content.decode()
    assert "from Webhook" in cards


def test_it_the_activity_log_shows_requests_and_outside_refusals_in_words(owner_client, origin):
    post_hook(Client(), origin, *signed(origin, {"text": "x", "author": "ci-bot"}))
    post_hook(Client(), origin, *signed(origin, {"text": "x"}, secret="wrong"))
    page = owner_client.get("/activity/").content.decode()
    assert "Webhook request from ci-bot (ci)" in page
    assert "Refused: a request from outside was not signed right" in page


def field_box(page: str, field: str) -> str:
    """The HTML of one field's box on the origin form, up to the next box."""
    start = page.index(f'class="origin-field field-{field}"')
    end = page.find('class="origin-field ', start + 1)
    return page[start : end if end != -1 else None]


def test_it_puts_an_error_beside_its_field_in_plain_words(owner_client):
    owner_client.post("/settings/origins/new/", {**NEW, "callback_url": "ftp://x"})
    page = owner_client.get("/settings/origins/").content.decode()
    box = field_box(page, "callback_url")
    assert "field-error" in box and "starting with https://" in box
    assert 'value="ftp://x"' in box  # what was typed stays
    assert "field-error" not in field_box(page, "name")
    assert "Value error" not in page


def test_it_never_carries_a_typed_secret_through_the_redirect(owner_client):
    owner_client.post("/settings/origins/new/", {**NEW, "name": "", "secret": "typed-s3cret"})
    page = owner_client.get("/settings/origins/").content.decode()
    assert "typed-s3cret" not in page and "field-error" in field_box(page, "name")


@pytest.mark.parametrize(
    ("kind", "shown", "not_shown"),
    [
        ("webhook", {"callback_url", "secret"}, {"handle", "bot_token", "private_key"}),
        ("github", {"handle", "token", "private_key"}, {"callback_url", "bot_token"}),
        ("slack", {"bot_token", "api_url"}, {"handle", "callback_url", "app_id"}),
        ("a2a", {"secret"}, {"callback_url", "handle", "bot_token", "api_url"}),
        ("automation", {"callback_url"}, {"secret", "handle", "bot_token"}),
    ],
)
def test_it_an_edit_shows_only_its_kinds_fields(owner_client, owner, kind, shown, not_shown):
    origin = make_origin(owner, "o", kind=kind, settings={})
    page = owner_client.get(f"/settings/origins/{origin.public_id}/").content.decode()
    for field in shown:
        assert f"field-{field}" in page
    for field in not_shown:
        assert f"field-{field}" not in page


def test_it_labels_fields_in_words_and_the_add_form_names_each_fields_kinds(owner_client):
    page = owner_client.get("/settings/origins/").content.decode()
    assert "Api url" not in page and "Answers go to (URL)" in page
    assert 'data-kinds="github"' in page and "crosstalk/origins.js" in page


def test_it_asks_before_a_new_secret_and_a_delete(owner_client, origin):
    page = owner_client.get("/settings/origins/").content.decode()
    assert page.count("data-confirm=") == 2


def test_it_the_test_request_redirects_and_shows_its_result_once(owner_client, origin):
    posted = owner_client.post(f"/settings/origins/{origin.public_id}/test/")
    assert posted.status_code == 302
    page = owner_client.get("/settings/origins/").content.decode()
    assert 'class="test-result"' in page
    assert 'class="test-result"' not in owner_client.get("/settings/origins/").content.decode()


def test_it_the_delivery_log_of_another_account_reads_as_missing(outsider_client, origin):
    assert outsider_client.get(f"/settings/origins/{origin.public_id}/log/").status_code == 404
    resend = f"/settings/origins/{origin.public_id}/log/answers/1/resend/"
    assert outsider_client.post(resend).status_code == 404
