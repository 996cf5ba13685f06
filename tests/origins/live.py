"""Shared by the GitHub and Slack live tests: requests over real HTTP to the live test
server (pytest-django's, on the test database: SQLite or PostgreSQL, whichever
DATABASE_URL names), and the demo turn and answer loop run to their end."""

import httpx
from asgiref.sync import async_to_sync

from origins.actions import send_due_replies
from origins.models import Origin
from tests.agents.conftest import run_all

# One client for the module: a new one loads the CA bundle each time, a third of a second.
CLIENT = httpx.Client(timeout=15)


def post_hook(base_url: str, public_id: str, body: bytes, headers: dict) -> httpx.Response:
    return CLIENT.post(f"{base_url}/hooks/in/{public_id}", content=body, headers=headers)


def run_turns_and_answer() -> int:
    """Runs every queued turn (the demo agent), then the answer loop once: how many
    answers it tried."""
    async_to_sync(run_all)()
    return send_due_replies()


def post_to(base_url: str, origin: Origin, body: bytes, headers: dict) -> httpx.Response:
    return post_hook(base_url, origin.public_id, body, headers)
