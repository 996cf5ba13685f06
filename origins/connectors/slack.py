"""Slack (docs/origins-github-slack.md): an app's Events API. An `app_mention` starts or
continues the chat of its thread ("C123/1700000000.000100"); the chat's answer goes back
in that thread through Slack's Web API (chat.postMessage), posted with origins.outbound's
client (slack-sdk's WebClient uses urllib, which follows redirects anywhere). Requests are
signed with the app's signing secret over "v0:<timestamp>:<body>"; a timestamp more than
five minutes off is refused, and each event id is accepted once, so Slack's retries never
start a second chat."""

import hashlib
import hmac
import json
import re
import secrets
import time

import httpx
from django.conf import settings

from kernel.refusals import Refusal
from origins.bodies import read_json
from origins.connectors import Handshake
from origins.inputs import Inbound
from origins.outbound import outbound_client
from origins.signing import bad_signature

SIGNATURE = "X-Slack-Signature"
TIMESTAMP = "X-Slack-Request-Timestamp"
RETRY = "X-Slack-Retry-Num"
DEFAULT_API_URL = "https://slack.com/api/"
# An answer that takes longer is tried again later by the reply loop.
SEND_TIMEOUT_SECONDS = 15
# Slack cuts a message's text past 40,000 characters; we cut first, and say so.
MAX_TEXT = 39_000
CUT_NOTE = "\n\n(Cut here: the answer was longer than a Slack message can hold.)"
# A bot's message, an edit or a deletion asks nothing new (a file shared with the
# mention, subtype file_share, still does).
IGNORED_SUBTYPES = {"bot_message", "message_changed", "message_deleted", "message_replied"}
LEADING_MENTION = re.compile(r"^\s*<@[A-Z0-9]+(?:\|[^>]*)?>[\s,:]*")


class SlackAnswerFailed(RuntimeError):
    pass


def signature(secret: str, timestamp: str, body: bytes) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def check_signature(secret: str, body: bytes, *, given: str, timestamp: str) -> None:
    if not given or not timestamp:
        raise bad_signature(f"Sign the request: Slack sends {SIGNATURE} and {TIMESTAMP}.")
    if not timestamp.isascii() or not timestamp.isdigit():
        raise bad_signature(f"{TIMESTAMP} must be whole seconds since 1970.")
    tolerance = settings.ORIGIN_SIGNATURE_TOLERANCE_SECONDS
    if abs(time.time() - int(timestamp)) > tolerance:
        raise bad_signature(
            f"{TIMESTAMP} is more than {int(tolerance)} seconds from the server's clock: "
            "a replayed or delayed request."
        )
    if not hmac.compare_digest(given.encode(), signature(secret, timestamp, body).encode()):
        raise bad_signature(
            f"{SIGNATURE} does not match: the origin's secret must be the app's signing secret."
        )


def read_payload(body: bytes) -> dict:
    payload = read_json(body, what="a Slack event: a JSON object")
    if not isinstance(payload, dict):
        raise Refusal("invalid_input", "The body is not a Slack event: a JSON object.")
    return payload


def answer_handshake(payload: dict) -> None:
    """Answers the URL verification handshake (sent, signed, when the Request URL is
    saved in the app's settings) with its challenge; any other request passes."""
    if payload.get("type") != "url_verification":
        return
    challenge = payload.get("challenge")
    if not isinstance(challenge, str) or not challenge or len(challenge) > 200:
        raise Refusal("invalid_input", "The url_verification request has no challenge.")
    raise Handshake({"challenge": challenge})


def inbound_from_payload(payload: dict) -> Inbound | None:
    """What an event asks, or None for anything but a person's `app_mention` (other
    events, and messages of bots, so two apps never answer each other for ever)."""
    event = payload.get("event")
    if payload.get("type") != "event_callback" or not isinstance(event, dict):
        return None
    if event.get("type") != "app_mention" or event.get("bot_id"):
        return None
    if event.get("subtype") in IGNORED_SUBTYPES:
        return None
    channel, ts, event_id = (_str(event, "channel"), _str(event, "ts"), _str(payload, "event_id"))
    if not channel or not ts or not event_id:
        raise Refusal("invalid_input", "The app_mention event has no channel, ts or event_id.")
    thread_ts = _str(event, "thread_ts") or ts
    user = _str(event, "user")
    text = LEADING_MENTION.sub("", _str(event, "text"), count=1)
    return Inbound(
        thread_key=f"{channel}/{thread_ts}",
        text=f"A Slack message from <@{user}> in channel {channel}:\n\n{text}",
        author=user,
        delivery_id=event_id,
        reply_to={"channel": channel, "thread_ts": thread_ts},
    )


def _str(value: dict, key: str) -> str:
    found = value.get(key)
    return found if isinstance(found, str) else ""


def fit_text(text: str) -> str:
    text = text.strip() or "(The chat finished without an answer.)"
    if len(text) <= MAX_TEXT:
        return text
    return text[: MAX_TEXT - len(CUT_NOTE)] + CUT_NOTE


def post_answer(config: dict, reply_to: dict, text: str) -> None:
    """Raises when Slack answers {"ok": false}, naming Slack's reason, for the retry loop
    and the activity log (`not_in_channel`: invite the bot; `invalid_auth`: the token)."""
    base_url = (config.get("api_url") or DEFAULT_API_URL).rstrip("/") + "/"
    message = {
        "channel": reply_to["channel"],
        "thread_ts": reply_to["thread_ts"],
        "text": fit_text(text),
    }
    headers = {"Authorization": f"Bearer {config.get('bot_token') or ''}"}
    with outbound_client(SEND_TIMEOUT_SECONDS) as client:
        response = client.post(base_url + "chat.postMessage", json=message, headers=headers)
    check_answered(response)


def check_answered(response: httpx.Response) -> None:
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code >= 300 or not isinstance(answer, dict):
        raise SlackAnswerFailed(f"Slack answered {response.status_code}")
    if answer.get("ok") is not True:
        reason = answer.get("error")
        said = reason if isinstance(reason, str) else "an error"
        raise SlackAnswerFailed(f"Slack answered {said}")


class SlackConnector:
    kind = "slack"
    # A retry of an event already accepted is answered 200 (origins.views).
    retries_ok = True

    def verify(self, origin, request) -> None:
        check_signature(
            origin.secret,
            request.body,
            given=request.headers.get(SIGNATURE, ""),
            timestamp=request.headers.get(TIMESTAMP, ""),
        )

    def parse(self, origin, request) -> Inbound | None:
        payload = read_payload(request.body)
        answer_handshake(payload)
        return inbound_from_payload(payload)

    def send_answer(self, thread, text: str) -> None:
        post_answer(thread.origin.settings, thread.reply_to, text)

    def test_request(self, origin) -> tuple[dict[str, str], bytes]:
        """Headers and body of a signed URL handshake, as Slack sends one when the Request URL
        is saved (the Settings page's test button): answered with its challenge."""
        payload = {"type": "url_verification", "challenge": secrets.token_urlsafe(24)}
        body = json.dumps(payload).encode()
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            TIMESTAMP: timestamp,
            SIGNATURE: signature(origin.secret, timestamp, body),
        }
        return headers, body
