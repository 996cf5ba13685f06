"""Slack's signature and events, without a server: what starts a chat, what is ignored."""

import pytest
import time_machine

from kernel.refusals import Refusal
from origins.connectors import Handshake, slack
from tests.origins.slack_events import app_mention, url_verification

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
NOW = 1_800_000_000


def check(body: bytes, *, given: str, timestamp: str) -> None:
    slack.check_signature(SECRET, body, given=given, timestamp=timestamp)


def test_it_matches_slacks_documented_signature_example():
    # docs.slack.dev "Verifying requests from Slack": this secret, timestamp and body.
    body = (
        b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id="
        b"G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook"
        b"-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397"
        b"700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14"
        b"d10d2c447fce8b6703c"
    )
    assert slack.signature(SECRET, "1531420618", body) == (
        "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
    )


@time_machine.travel(NOW, tick=False)
def test_it_accepts_a_fresh_signed_request():
    body = b'{"type": "event_callback"}'
    check(body, given=slack.signature(SECRET, str(NOW - 299), body), timestamp=str(NOW - 299))


@time_machine.travel(NOW, tick=False)
@pytest.mark.parametrize("offset", [-301, 301, -86_400])
def test_it_refuses_a_timestamp_more_than_five_minutes_off(offset):
    body = b"{}"
    stamp = str(NOW + offset)
    with pytest.raises(Refusal) as refused:
        check(body, given=slack.signature(SECRET, stamp, body), timestamp=stamp)
    assert refused.value.code == "bad_signature" and "seconds" in refused.value.message


@time_machine.travel(NOW, tick=False)
@pytest.mark.parametrize("stamp", ["", "-5", "1.8e9", "１８００", "abc", str(NOW) + "\x00"])
def test_it_refuses_a_timestamp_that_is_not_whole_seconds(stamp):
    with pytest.raises(Refusal) as refused:
        check(b"{}", given=slack.signature(SECRET, stamp, b"{}"), timestamp=stamp)
    assert refused.value.code == "bad_signature"


@time_machine.travel(NOW, tick=False)
def test_it_refuses_a_wrong_or_missing_signature():
    body, stamp = b"{}", str(NOW)
    for given in (
        "",
        "v0=",
        slack.signature("other", stamp, body),
        slack.signature(SECRET, stamp, body + b" "),
    ):
        with pytest.raises(Refusal) as refused:
            check(body, given=given, timestamp=stamp)
        assert refused.value.code == "bad_signature" and refused.value.status == 401


def test_it_the_handshake_answers_the_challenge():
    with pytest.raises(Handshake) as handshake:
        slack.answer_handshake(url_verification("abc123"))
    assert handshake.value.body == {"challenge": "abc123"} and handshake.value.status == 200
    slack.answer_handshake(app_mention("<@U0BOT0001> hi"))  # passes: not a handshake
    with pytest.raises(Refusal):
        slack.answer_handshake({"type": "url_verification", "challenge": ["x"]})


def test_it_a_mention_names_its_thread_and_drops_the_leading_mention():
    payload = app_mention("<@U0BOT0001> which port does the API use?", event_id="Ev123")
    inbound = slack.inbound_from_payload(payload)

    assert inbound.thread_key == "C0LAN2Q65/1700000000.000100"
    assert inbound.reply_to == {"channel": "C0LAN2Q65", "thread_ts": "1700000000.000100"}
    assert inbound.delivery_id == "Ev123" and inbound.author == "U061F7AUR"
    assert inbound.text.endswith("\n\nwhich port does the API use?")


def test_it_a_mention_inside_a_thread_continues_that_thread():
    payload = app_mention(
        "<@U0BOT0001> and now?", ts="1700000100.000200", thread_ts="1700000000.000100"
    )
    inbound = slack.inbound_from_payload(payload)
    assert inbound.thread_key == "C0LAN2Q65/1700000000.000100"
    assert inbound.reply_to["thread_ts"] == "1700000000.000100"


@pytest.mark.parametrize(
    "payload",
    [
        app_mention("<@U0BOT0001> from another bot", bot=True),
        {**app_mention("x"), "event": {**app_mention("x")["event"], "type": "message"}},
        {**app_mention("x"), "event": {**app_mention("x")["event"], "subtype": "message_changed"}},
        {**app_mention("x"), "event": {**app_mention("x")["event"], "subtype": "bot_message"}},
        {**app_mention("x"), "type": "app_rate_limited"},
        {**app_mention("x"), "event": "not an object"},
        url_verification(),
    ],
)
def test_it_ignores_what_is_not_a_persons_mention(payload):
    assert slack.inbound_from_payload(payload) is None


def test_it_a_mention_with_a_file_shared_still_asks():
    payload = app_mention("<@U0BOT0001> see the log")
    payload["event"]["subtype"] = "file_share"
    assert slack.inbound_from_payload(payload).text.endswith("see the log")


def test_it_refuses_a_mention_without_channel_ts_or_event_id():
    for field in ("channel", "ts"):
        payload = app_mention("<@U0BOT0001> hi")
        del payload["event"][field]
        with pytest.raises(Refusal):
            slack.inbound_from_payload(payload)
    payload = app_mention("<@U0BOT0001> hi")
    payload["event_id"] = 5
    with pytest.raises(Refusal):
        slack.inbound_from_payload(payload)


def test_it_refuses_a_body_that_is_no_event():
    for body in (b"[]", b"\xff", b"token=x", b""):
        with pytest.raises(Refusal) as refused:
            slack.read_payload(body)
        assert refused.value.code == "invalid_input"


def test_it_cuts_a_long_answer_and_says_so():
    cut = slack.fit_text("y" * 50_000)
    assert len(cut) == slack.MAX_TEXT and cut.endswith(slack.CUT_NOTE)
