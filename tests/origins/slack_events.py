"""Slack Events API requests in the documented shapes (url_verification, event_callback
with app_mention), signed as Slack signs them."""

import json
import time
import uuid

from origins.connectors.slack import signature


def app_mention(
    text: str,
    *,
    channel="C0LAN2Q65",
    ts="1700000000.000100",
    thread_ts=None,
    user="U061F7AUR",
    event_id=None,
    bot=False,
) -> dict:
    event = {
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    if bot:
        event["bot_id"] = "B0AAA1111"
    return {
        "token": "ZZZZZZWSxiZZZ2yIvs3peJ",
        "team_id": "T061EG9R6",
        "api_app_id": "A0MDYCDME",
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(float(ts)),
        "authorizations": [{"team_id": "T061EG9R6", "user_id": "U0BOT0001", "is_bot": True}],
    }


def url_verification(challenge="3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P") -> dict:
    return {"token": "Jhj5dZrVaK7ZwHHjRyZWjbDl", "challenge": challenge, "type": "url_verification"}


def signed(secret: str, payload: dict, *, at: float | None = None, retry: int | None = None):
    """(body, headers) as Slack sends an event, signed with `secret` at time `at`."""
    body = json.dumps(payload).encode()
    timestamp = str(int(time.time() if at is None else at))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature(secret, timestamp, body),
    }
    if retry is not None:
        headers["X-Slack-Retry-Num"] = str(retry)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return body, headers
