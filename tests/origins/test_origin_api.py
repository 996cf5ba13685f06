"""Origins on REST (/api/v1/origins) and MCP: the same input model, the same answers,
refusals included; and the attacker's tries on each (another account, a chat's key, a
value starting with `-`, NUL bytes, a huge body)."""

import json

import pytest
from django.conf import settings

from origins.models import Origin
from tests.conftest import ApiClient
from tests.origins.conftest import make_origin
from tests.peers.test_mcp_tools import answered, api_token, mcp, refusal_of

pytestmark = pytest.mark.django_db

NEW = {"kind": "webhook", "name": "ci", "callback_url": "https://example.test/answers"}
# What differs between two origins made alike: their identity, moment and secret.
PER_ORIGIN = {"id", "url", "created_at", "secret", "name"}


@pytest.fixture
def person(owner):
    return api_token(owner)


def without(body: dict, keys: set[str]) -> dict:
    return {key: value for key, value in body.items() if key not in keys}


def test_it_creates_lists_reads_changes_and_deletes_an_origin(owner_api, owner):
    made = owner_api.call("POST", "/api/v1/origins", NEW)
    assert made.status_code == 201, made.content
    body = made.json()
    origin = Origin.objects.get(user=owner)
    assert body["secret"] == origin.secret and body["id"] == origin.public_id
    assert body["url"].endswith(f"/hooks/in/{origin.public_id}")
    listed = owner_api.call("GET", "/api/v1/origins").json()
    assert listed["count"] == 1 and "secret" not in listed["items"][0]
    path = f"/api/v1/origins/{origin.public_id}"
    assert owner_api.call("GET", path).json() == listed["items"][0]
    changed = owner_api.call("PATCH", path, {"name": "ci-2", "requests_per_hour": 5})
    assert changed.status_code == 200, changed.content
    assert (changed.json()["name"], changed.json()["limit"]) == ("ci-2", 5)
    assert changed.json()["callback_url"] == NEW["callback_url"]  # left out: kept
    assert owner_api.call("DELETE", path).status_code == 204
    assert not Origin.objects.exists()
    assert owner_api.call("GET", path).json()["code"] == "not_found"


def test_it_never_shows_stored_tokens_and_keeps_them_on_a_change(owner_api, owner):
    github = {"kind": "github", "name": "gh", "handle": "bot", "token": "ghp_secret"}
    body = owner_api.call("POST", "/api/v1/origins", github).json()
    assert "ghp_secret" not in json.dumps(without(body, {"secret"}))
    assert body["stored"] == ["token"]
    owner_api.call("PATCH", f"/api/v1/origins/{body['id']}", {"handle": "bot2"})
    assert Origin.objects.get(user=owner).settings["token"] == "ghp_secret"


def test_it_rotates_the_secret_and_the_old_one_stops(owner_api, owner):
    origin = make_origin(owner)
    old = origin.secret
    body = owner_api.call("POST", f"/api/v1/origins/{origin.public_id}/secret").json()
    origin.refresh_from_db()
    assert body["secret"] == origin.secret != old


def test_it_keeps_the_kind(owner_api, owner):
    origin = make_origin(owner)
    refused = owner_api.call("PATCH", f"/api/v1/origins/{origin.public_id}", {"kind": "slack"})
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_input")
    assert refused.json()["message"].startswith("kind: ")


def test_rest_and_mcp_answer_alike(owner_api, person):
    rest = owner_api.call("POST", "/api/v1/origins", NEW).json()
    tool = answered(mcp(person, "create_origin", {**NEW, "name": "ci-mcp"}))
    assert without(rest, PER_ORIGIN) == without(tool, PER_ORIGIN)
    listed = answered(mcp(person, "list_origins"))
    assert listed == owner_api.call("GET", "/api/v1/origins").json()
    changed = answered(mcp(person, "update_origin", {"origin": tool["id"], "enabled": False}))
    assert changed == owner_api.call("GET", f"/api/v1/origins/{tool['id']}").json()
    rotated = answered(mcp(person, "rotate_origin_secret", {"origin": tool["id"]}))
    assert rotated["secret"] == Origin.objects.get(public_id=tool["id"]).secret
    assert answered(mcp(person, "delete_origin", {"origin": tool["id"]})) == {
        "id": tool["id"],
        "deleted": True,
    }


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"callback_url": "-x"}, "callback_url"),
        ({"callback_url": "--help"}, "callback_url"),
        ({"api_url": "-https://x"}, "api_url"),
        ({"name": "bad\x00name"}, "NUL"),
        ({"requests_per_hour": 0}, "requests_per_hour"),
        ({"kind": "nope"}, "kind"),
        ({"callback_url": ""}, "callback_url"),
    ],
)
def test_it_refuses_bad_input_alike_on_both_faces(owner_api, person, change, field):
    rest = owner_api.call("POST", "/api/v1/origins", {**NEW, **change})
    tool = refusal_of(mcp(person, "create_origin", {**NEW, **change}))
    assert rest.status_code == 400 and rest.json()["code"] == tool["code"] == "invalid_input"
    assert field in rest.json()["message"] and field in tool["message"]
    assert "Value error" not in rest.json()["message"] + tool["message"]
    assert not Origin.objects.exists()


def test_it_a_taken_name_is_refused_alike(owner_api, person, owner):
    make_origin(owner, "ci")
    rest = owner_api.call("POST", "/api/v1/origins", NEW).json()
    assert rest == refusal_of(mcp(person, "create_origin", NEW))
    assert rest["code"] == "name_taken"


ROUTES = [
    ("GET", ""),
    ("PATCH", ""),
    ("DELETE", ""),
    ("POST", "/secret"),
    ("GET", "/requests"),
    ("GET", "/answers"),
    ("POST", "/answers/1/resend"),
]


@pytest.mark.parametrize(("method", "tail"), ROUTES)
def test_it_another_accounts_origin_reads_like_a_missing_one(outsider_api, owner, method, tail):
    theirs = make_origin(owner, "theirs")
    found = outsider_api.call(method, f"/api/v1/origins/{theirs.public_id}{tail}", {"name": "x"})
    missing = outsider_api.call(method, f"/api/v1/origins/org_missing{tail}", {"name": "x"})
    dashed = outsider_api.call(method, f"/api/v1/origins/-rf{tail}", {"name": "x"})
    assert found.status_code == missing.status_code == dashed.status_code == 404
    assert found.json() == missing.json() == dashed.json()
    fresh = Origin.objects.get(pk=theirs.pk)
    assert (fresh.name, fresh.secret) == (theirs.name, theirs.secret)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("update_origin", {"name": "x"}),
        ("delete_origin", {}),
        ("rotate_origin_secret", {}),
        ("read_origin_log", {}),
        ("resend_origin_answer", {"answer": 1}),
    ],
)
def test_it_another_accounts_origin_reads_like_a_missing_one_on_mcp(
    outsider, owner, tool, arguments
):
    theirs = make_origin(owner, "theirs")
    secret = api_token(outsider)
    found = refusal_of(mcp(secret, tool, {**arguments, "origin": theirs.public_id}))
    missing = refusal_of(mcp(secret, tool, {**arguments, "origin": "org_missing"}))
    assert found == missing and found["code"] == "not_found"
    assert Origin.objects.get(pk=theirs.pk).secret == theirs.secret


def test_it_refuses_a_chats_key_doing_the_persons_job(chat, owner):
    origin = make_origin(owner)
    agent = ApiClient(chat.agent_key)
    for method, tail in [("GET", ""), ("DELETE", ""), ("POST", "/secret")]:
        answer = agent.call(method, f"/api/v1/origins/{origin.public_id}{tail}")
        assert (answer.status_code, answer.json()["code"]) == (401, "not_authenticated")
    made = agent.call("POST", "/api/v1/origins", NEW)
    assert made.status_code == 401
    tool = refusal_of(mcp(chat.agent_key, "create_origin", NEW))
    assert tool["code"] == "not_found"  # no such tool for an agent key
    assert Origin.objects.count() == 1 and Origin.objects.get().secret == origin.secret


def test_it_refuses_a_huge_body_and_keeps_what_is_stored(owner_api, owner):
    origin = make_origin(owner)
    huge = {"name": "x", "command": "y" * (settings.API_MAX_BODY_BYTES + 10)}
    answer = owner_api.call("PATCH", f"/api/v1/origins/{origin.public_id}", huge)
    assert (answer.status_code, answer.json()["code"]) == (413, "too_large")
    made = owner_api.call("POST", "/api/v1/origins", {**NEW, **huge})
    assert made.status_code == 413
    assert Origin.objects.get().name == "ci"


def test_it_refuses_nul_bytes_in_a_change_and_keeps_what_is_stored(owner_api, person, owner):
    origin = make_origin(owner)
    rest = owner_api.call("PATCH", f"/api/v1/origins/{origin.public_id}", {"name": "a\x00b"})
    tool = refusal_of(mcp(person, "update_origin", {"origin": origin.public_id, "name": "a\x00"}))
    assert rest.status_code == 400 and rest.json()["code"] == tool["code"] == "invalid_input"
    assert Origin.objects.get().name == "ci"


def test_it_an_mcp_create_retried_with_its_key_makes_one_origin(person):
    first = answered(mcp(person, "create_origin", {**NEW, "idempotencyKey": "k1"}))
    again = answered(mcp(person, "create_origin", {**NEW, "idempotencyKey": "k1"}))
    assert first == again and Origin.objects.count() == 1


def test_it_a_rest_create_retried_with_its_key_makes_one_origin(owner_api):
    headers = {"Idempotency-Key": "k1"}
    first = owner_api.post("/api/v1/origins", NEW, content_type="application/json", headers=headers)
    again = owner_api.post("/api/v1/origins", NEW, content_type="application/json", headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json() and Origin.objects.count() == 1
