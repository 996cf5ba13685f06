"""A fake Slack Web API on 127.0.0.1 that records the messages Crosstalk posts.

    with FakeSlack(token="xoxb-test") as slack:
        ...  # the origin's settings: {"api_url": slack.url + "/api/", "bot_token": "xoxb-test"}
        assert slack.messages() == [("C123", "1700000000.000100", "the answer")]

It answers chat.postMessage as Slack does: HTTP 200 with {"ok": false, "error": …} for a
bad token or a missing channel, {"ok": true, …} otherwise."""

import re

from tests.origins.fake_api import Call, FakeApi


def _post_message(fake: "FakeSlack", call: Call):
    if call.headers.get("Authorization") != f"Bearer {fake.token}":
        return 200, {"ok": False, "error": "invalid_auth"}
    body = call.body or {}
    if not body.get("channel") or not body.get("text"):
        return 200, {
            "ok": False,
            "error": "no_text" if body.get("channel") else "channel_not_found",
        }
    fake.posted.append((body["channel"], body.get("thread_ts"), body["text"]))
    ts = f"1800000000.{len(fake.posted):06d}"
    return 200, {
        "ok": True,
        "channel": body["channel"],
        "ts": ts,
        "message": {"text": body["text"]},
    }


class FakeSlack(FakeApi):
    routes = [("POST", re.compile(r"/api/chat\.postMessage"), _post_message)]

    def __init__(self, token: str):
        super().__init__()
        self.token = token
        self.posted: list[tuple[str, str | None, str]] = []

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def messages(self) -> list[tuple[str, str | None, str]]:
        """(channel, thread_ts, text) of each message posted."""
        return list(self.posted)
