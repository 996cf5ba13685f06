"""Slack's Events API over real HTTP: the URL handshake, a signed app_mention starts a
chat that runs a demo turn, and its answer reaches a fake Slack API on loopback in the
right thread. Runs on the test database's backend (SQLite, or PostgreSQL)."""

import json
import time

import pytest

from chats.models import Chat, Turn
from origins.connectors.slack import SlackConnector
from origins.models import OriginDelivery, OriginReply
from tests.origins.conftest import make_origin
from tests.origins.fake_slack import FakeSlack
from tests.origins.live import post_hook, post_to, run_turns_and_answer
from tests.origins.slack_events import app_mention, signed, url_verification

pytestmark = pytest.mark.django_db(transaction=True)
TOKEN = "xoxb-live-test-token"
BOT = "<@U0BOT0001>"


@pytest.fixture(autouse=True)
def quick_demo(settings):
    settings.DEMO_STEP_SECONDS = 0


@pytest.fixture
def slack():
    with FakeSlack(TOKEN) as fake:
        yield fake


@pytest.fixture
def origin(owner, slack):
    config = {"bot_token": TOKEN, "api_url": slack.api_url}
    return make_origin(owner, "team chat", kind="slack", settings=config)


def send(live_server, origin, payload: dict, **kwargs):
    return post_to(live_server.url, origin, *signed(origin.secret, payload, **kwargs))


def started_nothing() -> bool:
    return not Chat.objects.exclude(origin="user").exists() and not Turn.objects.exists()


def test_it_the_url_handshake_answers_the_challenge(live_server, origin):
    answer = send(live_server, origin, url_verification("chal-123"))

    assert answer.status_code == 200 and answer.json() == {"challenge": "chal-123"}
    assert started_nothing()


def test_it_the_test_button_gets_its_challenge_back(live_server, origin):
    headers, body = SlackConnector().test_request(origin)
    answer = post_to(live_server.url, origin, body, headers)
    assert answer.status_code == 200
    assert answer.json() == {"challenge": json.loads(body)["challenge"]}
    assert started_nothing()


def test_it_an_unsigned_handshake_is_refused(live_server, origin):
    body, headers = signed("not-the-signing-secret", url_verification("chal-123"))
    answer = post_to(live_server.url, origin, body, headers)
    assert answer.status_code == 401 and "chal-123" not in answer.text


def test_it_a_mention_starts_a_chat_that_answers_in_its_thread(live_server, origin, slack):
    answer = send(live_server, origin, app_mention(f"{BOT} which port?", ts="1700000000.000100"))

    assert answer.status_code == 202, answer.text
    chat = Chat.objects.get(pk=answer.json()["chat"])
    assert chat.origin == "slack" and chat.user == origin.user
    assert answer.json()["thread"] == "C0LAN2Q65/1700000000.000100"
    assert run_turns_and_answer() == 1
    [(channel, thread_ts, text)] = slack.messages()
    assert (channel, thread_ts) == ("C0LAN2Q65", "1700000000.000100")
    assert text.startswith('Read a request from slack by U061F7AUR: "A Slack message from')
    assert OriginReply.objects.get().state == OriginReply.State.SENT


def test_it_a_mention_in_the_thread_continues_its_chat(live_server, origin, slack):
    first = send(live_server, origin, app_mention(f"{BOT} one", ts="1700000000.000100"))
    run_turns_and_answer()
    second = send(
        live_server,
        origin,
        app_mention(f"{BOT} two", ts="1700000050.000300", thread_ts="1700000000.000100"),
    )
    other = send(live_server, origin, app_mention(f"{BOT} new", ts="1700000099.000900"))

    assert first.json()["chat"] == second.json()["chat"] != other.json()["chat"]
    run_turns_and_answer()
    threads = sorted(thread_ts for _, thread_ts, _ in slack.messages())
    assert threads == ["1700000000.000100", "1700000000.000100", "1700000099.000900"]


def test_it_slacks_retries_of_an_event_start_nothing_more(live_server, origin):
    payload = app_mention(f"{BOT} hi", event_id="Ev0RETRY01")
    assert send(live_server, origin, payload).status_code == 202

    retries = [send(live_server, origin, payload, retry=number) for number in (1, 2, 3)]

    # Answered 200, or Slack counts the retry as failed and keeps on retrying.
    assert [retry.status_code for retry in retries] == [200, 200, 200]
    assert Chat.objects.filter(origin="slack").count() == 1 and Turn.objects.count() == 1


# Well past the 300 s tolerance: the live server reads its clock a moment later. The exact
# boundary is tested with a frozen clock in test_slack_parsing.
@pytest.mark.parametrize("seconds_off", [-400, 400, -3600])
def test_it_a_stale_request_is_refused_and_starts_nothing(live_server, origin, seconds_off):
    answer = send(live_server, origin, app_mention(f"{BOT} hi"), at=time.time() + seconds_off)

    assert answer.status_code == 401 and answer.json()["code"] == "bad_signature"
    assert started_nothing() and not OriginDelivery.objects.exists()


@pytest.mark.parametrize("tamper", ["wrong secret", "changed body", "no signature"])
def test_it_a_bad_signature_is_refused_and_starts_nothing(live_server, origin, tamper):
    secret = "not-the-signing-secret" if tamper == "wrong secret" else origin.secret
    body, headers = signed(secret, app_mention(f"{BOT} please"))
    if tamper == "changed body":
        body = body.replace(b"please", b"rm -rf")
    if tamper == "no signature":
        del headers["X-Slack-Signature"]

    answer = post_to(live_server.url, origin, body, headers)

    assert answer.status_code == 401 and answer.json()["code"] == "bad_signature"
    assert started_nothing()


@pytest.mark.parametrize(
    "payload",
    [
        app_mention(f"{BOT} from a bot", bot=True),
        {**app_mention("x"), "event": {**app_mention("x")["event"], "type": "reaction_added"}},
    ],
)
def test_it_what_is_not_a_persons_mention_is_answered_200_and_starts_nothing(
    live_server, origin, slack, payload
):
    answer = send(live_server, origin, payload)

    assert answer.status_code == 200 and answer.json()["ignored"] is True
    assert started_nothing() and run_turns_and_answer() == 0 and slack.messages() == []


def test_it_an_unknown_or_disabled_origin_answers_the_same_404(live_server, origin):
    body, headers = signed(origin.secret, app_mention(f"{BOT} hi"))
    missing = post_hook(live_server.url, "org_nothing", body, headers)
    origin.enabled = False
    origin.save(update_fields=["enabled"])
    disabled = post_to(live_server.url, origin, body, headers)

    assert missing.status_code == disabled.status_code == 404
    assert missing.content == disabled.content
    assert started_nothing()


def test_it_a_mention_with_a_nul_byte_is_refused(live_server, origin):
    answer = send(live_server, origin, app_mention(f"{BOT} nul \x00 here"))
    assert answer.status_code == 400 and started_nothing()


def test_it_an_answer_slack_refuses_stays_unsent_with_slacks_reason(live_server, owner, slack):
    config = {"bot_token": "xoxb-revoked", "api_url": slack.api_url}
    origin = make_origin(owner, "revoked", kind="slack", settings=config)
    send(live_server, origin, app_mention(f"{BOT} hi"))

    run_turns_and_answer()

    reply = OriginReply.objects.get()
    assert reply.state == OriginReply.State.PENDING and reply.attempts == 1
    assert reply.last_error == "SlackAnswerFailed: Slack answered invalid_auth"
    assert slack.messages() == []
