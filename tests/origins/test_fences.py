"""What a signed request cannot do on /hooks/in/ (webhook, GitHub, Slack), in-process: be
sent again under a fresh delivery id, nest its JSON deep enough to crash the parser, or
start anything for an account that was deactivated."""

import hashlib
import time
import uuid
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from chats.models import Chat, Turn
from kernel.refusals import Refusal
from origins import signing
from origins.bodies import MAX_DEPTH, depth
from origins.connectors import github, slack
from origins.models import OriginDelivery
from tests.origins.conftest import make_origin, post_hook, signed
from tests.origins.github_events import delivery, issue_comment
from tests.origins.slack_events import app_mention
from tests.origins.slack_events import signed as slack_signed

pytestmark = pytest.mark.django_db
HANDLE = "crosstalk-bot"


@pytest.fixture
def gh_origin(owner):
    return make_origin(owner, "gh", kind="github", settings={"handle": HANDLE, "token": "t"})


@pytest.fixture
def slack_origin(owner):
    return make_origin(owner, "sl", kind="slack", settings={"bot_token": "xoxb-1"})


def started() -> int:
    return Chat.objects.exclude(origin=Chat.Origin.USER).count() + Turn.objects.count()


def nested(levels: int) -> bytes:
    return b'{"text": "hi", "deep": ' + b"[" * levels + b"]" * levels + b"}"


def signed_raw(origin, body: bytes) -> dict[str, str]:
    """Headers that sign `body` as the origin's kind signs it (with a fresh delivery id)."""
    if origin.kind == "github":
        return {
            github.EVENT: "issue_comment",
            github.DELIVERY: str(uuid.uuid4()),
            github.SIGNATURE: github.signature(origin.secret, body),
        }
    if origin.kind == "slack":
        stamp = str(int(time.time()))
        return {
            slack.TIMESTAMP: stamp,
            slack.SIGNATURE: slack.signature(origin.secret, stamp, body),
        }
    return signing.signed_headers(origin.secret, body, delivery_id=uuid.uuid4().hex)


def test_it_refuses_a_captured_webhook_request_under_a_fresh_delivery_id(origin):
    body, headers = signed(origin, {"text": "hi", "thread": "t"}, delivery="d-1")
    assert post_hook(Client(), origin, body, headers).status_code == 202
    replay = post_hook(Client(), origin, body, {**headers, signing.DELIVERY: "d-2"})
    assert replay.status_code == 409 and replay.json()["code"] == "duplicate_delivery"
    assert "another delivery id" in replay.json()["message"]
    assert Turn.objects.count() == 1


def test_it_the_same_text_signed_anew_is_a_new_request(origin):
    body, headers = signed(origin, {"text": "hi", "thread": "t"})
    assert post_hook(Client(), origin, body, headers).status_code == 202
    later = str(int(time.time()) + 1)
    again = signed(origin, {"text": "hi", "thread": "t"}, timestamp=later)
    assert post_hook(Client(), origin, *again).status_code == 202


def test_it_refuses_a_captured_github_delivery_under_a_fresh_delivery_id(gh_origin):
    payload = issue_comment(f"@{HANDLE} look at this")
    body, headers = delivery(gh_origin.secret, "issue_comment", payload)
    assert post_hook(Client(), gh_origin, body, headers).status_code == 202
    replay = post_hook(Client(), gh_origin, body, {**headers, github.DELIVERY: str(uuid.uuid4())})
    assert replay.status_code == 409 and replay.json()["code"] == "duplicate_delivery"
    redelivered = post_hook(Client(), gh_origin, body, headers)  # GitHub's Redeliver: same id
    assert redelivered.status_code == 409 and redelivered.json()["code"] == "duplicate_delivery"
    assert Turn.objects.count() == 1


def test_it_refuses_a_github_comment_older_than_the_deliveries_are_kept(gh_origin, settings):
    payload = issue_comment(f"@{HANDLE} look")
    old = timezone.now() - timedelta(days=settings.ORIGIN_DELIVERY_KEEP_DAYS, minutes=1)
    payload["comment"]["created_at"] = old.strftime("%Y-%m-%dT%H:%M:%SZ")
    response = post_hook(Client(), gh_origin, *delivery(gh_origin.secret, "issue_comment", payload))
    assert response.status_code == 401 and response.json()["code"] == "bad_signature"
    assert "a replayed delivery" in response.json()["message"] and started() == 0


def test_it_deliveries_are_kept_only_for_the_window(origin, settings):
    with time_machine.travel("2026-01-01 10:00:00Z", tick=False):
        assert post_hook(Client(), origin, *signed(origin, {"text": "a"})).status_code == 202
    later = timezone.now() + timedelta(days=settings.ORIGIN_DELIVERY_KEEP_DAYS)
    with time_machine.travel(later, tick=False):
        assert post_hook(Client(), origin, *signed(origin, {"text": "b"})).status_code == 202
    assert OriginDelivery.objects.filter(origin=origin).count() == 1


@pytest.mark.parametrize("kind", ["webhook", "github", "slack"])
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_it_deep_json_is_refused_as_invalid_input_on_every_hook(owner, kind, levels):
    origin = make_origin(owner, kind, kind=kind, settings={"handle": HANDLE})
    body = nested(levels)
    response = post_hook(Client(), origin, body, signed_raw(origin, body))
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert response.json()["code"] == "invalid_input"
    assert f"deeper than {MAX_DEPTH} levels" in response.json()["message"]
    assert started() == 0


def test_it_json_at_the_nesting_limit_is_taken(origin):
    body = nested(MAX_DEPTH - 1)  # the object around it is a level too
    assert post_hook(Client(), origin, body, signed_raw(origin, body)).status_code == 202


def test_it_brackets_inside_strings_are_not_nesting(origin):
    body = b'{"text": "' + b"[{" * 5000 + b'\\" ]"}'
    assert post_hook(Client(), origin, body, signed_raw(origin, body)).status_code == 202


@pytest.mark.parametrize(
    ("body", "levels"),
    [
        (b"5", 0),
        (b'{"a": [1, {"b": [2]}]}', 4),
        (b'{"a": "[[[[{{{{"}', 1),
        (b'{"a": "\\" [[", "b": ["\\\\"]}', 2),  # an escaped quote, then a backslash
        (b'["a\\"]"]', 1),
        (b"[" * 1000, 1000),
        (b'"' + b'\\"' * 1000, 0),  # an unterminated string of escaped quotes
    ],
)
def test_it_counts_nesting_outside_strings_only(body, levels):
    assert depth(body) == levels


@pytest.mark.parametrize("kind", ["webhook", "github", "slack"])
def test_it_a_huge_body_is_refused_on_every_hook(owner, kind, settings):
    settings.ORIGIN_MAX_BODY_BYTES = 2048
    origin = make_origin(owner, kind, kind=kind, settings={"handle": HANDLE})
    body = b'{"text": "' + b"y" * 5000 + b'"}'
    response = post_hook(Client(), origin, body, signed_raw(origin, body))
    assert response.status_code == 413 and response.json()["code"] == "too_large"
    assert started() == 0


def test_it_a_deactivated_accounts_origins_answer_like_missing_ones(
    owner, origin, gh_origin, slack_origin
):
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    missing = Client().post("/hooks/in/org_nothing", b"{}", content_type="application/json")
    webhook = post_hook(Client(), origin, *signed(origin, {"text": "hi"}))
    payload = issue_comment(f"@{HANDLE} hi")
    gh = post_hook(Client(), gh_origin, *delivery(gh_origin.secret, "issue_comment", payload))
    sl = post_hook(
        Client(), slack_origin, *slack_signed(slack_origin.secret, app_mention("<@U0BOT> hi"))
    )
    for answer in (webhook, gh, sl):
        assert answer.status_code == missing.status_code == 404
        assert answer.content == missing.content
    assert started() == 0 and not OriginDelivery.objects.exists()


def test_it_a_deactivated_account_starts_nothing_through_receive_either(owner, origin):
    from origins.actions import Inbound, receive_from_origin

    owner.is_active = False
    owner.save(update_fields=["is_active"])
    inbound = Inbound(thread_key="t", text="hi", author="", delivery_id="d-1")
    with pytest.raises(Refusal) as refused:
        receive_from_origin(origin, inbound)
    assert refused.value.code == "not_found"
    assert started() == 0


def test_it_the_signed_digest_is_of_what_the_signature_covers(origin):
    body, headers = signed(origin, {"text": "hi"})
    post_hook(Client(), origin, body, headers)
    row = OriginDelivery.objects.get(origin=origin)
    covered = headers[signing.TIMESTAMP].encode() + b"." + body
    assert row.signed_digest == hashlib.sha256(covered).hexdigest()
