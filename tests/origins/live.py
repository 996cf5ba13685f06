"""Shared by the GitHub and Slack live tests: requests over real HTTP to the live test
server (pytest-django's, on the test database: SQLite or PostgreSQL, whichever
DATABASE_URL names), and the demo turn and answer loop run to their end."""

import httpx
from asgiref.sync import async_to_sync

from origins.actions import send_due_replies
from origins.models import Origin
from tests.agents.conftest import run_all


def post_hook(base_url: str, public_id: str, body: bytes, headers: dict) -> httpx.Response:
    return httpx.post(f"{base_url}/hooks/in/{public_id}", content=body, headers=headers, timeout=15)


def run_turns_and_answer() -> int:
    """Runs every queued turn (the demo agent), then the answer loop once: how many
    answers it tried."""
    async_to_sync(run_all)()
    return send_due_replies()


def post_to(base_url: str, origin: Origin, body: bytes, headers: dict) -> httpx.Response:
    return post_hook(base_url, origin.public_id, body, headers)
