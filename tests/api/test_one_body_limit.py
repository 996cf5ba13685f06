"""REST and MCP take the same bodies: one setting (API_MAX_BODY_BYTES) bounds both, so
one byte over it is too_large on each face and a body of exactly that size is taken."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from accounts.actions import do_create_api_token
from crosstalk.mcp.http import run_mcp_session_manager, serve_mcp
from kernel.lazy import LOADED
from tests.conftest import ApiClient

LIMIT = 64 * 1024

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.API_MAX_BODY_BYTES = LIMIT


def padded(head: dict, size: int) -> bytes:
    """`head` as JSON with its "pad" string grown until the body is exactly `size` bytes."""
    bare = json.dumps({**head, "pad": ""}).encode()
    return json.dumps({**head, "pad": "x" * (size - len(bare))}).encode()


def mcp_initialize(size: int) -> bytes:
    """An MCP initialize request of exactly `size` bytes (the padding in clientInfo)."""
    client = {"name": "", "version": "1"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    bare = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    client["name"] = "x" * (size - len(bare.encode()))
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    ).encode()


async def post_mcp(secret: str, body: bytes) -> tuple[int, bytes]:
    """One POST to /mcp through the ASGI face: its status and the first bytes it sends."""
    scope = {
        "type": "http", "method": "POST", "path": "/mcp", "raw_path": b"/mcp",
        "query_string": b"", "scheme": "http", "http_version": "1.1",
        "server": ("testserver", 80), "client": ("127.0.0.1", 1),
        "headers": [
            (b"authorization", f"Bearer {secret}".encode()),
            (b"content-type", b"application/json"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-length", str(len(body)).encode()),
        ],
    }  # fmt: skip
    loop = asyncio.get_running_loop()
    started, first_body = loop.create_future(), loop.create_future()
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Future()  # the client stays connected

    async def send(message):
        if message["type"] == "http.response.start" and not started.done():
            started.set_result(message["status"])
        elif message.get("body") and not first_body.done():
            first_body.set_result(message["body"])

    serving = asyncio.create_task(serve_mcp(scope, receive, send))
    try:
        return await asyncio.wait_for(started, 30), await asyncio.wait_for(first_body, 30)
    finally:
        serving.cancel()


@pytest.fixture
def token(owner) -> str:
    return do_create_api_token(owner, name="limit")[1]


def test_it_refuses_one_byte_over_on_rest_and_takes_the_limit_itself(token):
    api = ApiClient(token)
    head = {"to_chat": "nope", "text": "hi"}
    over = api.generic("POST", "/api/v1/messages", padded(head, LIMIT + 1), "application/json")
    assert (over.status_code, over.json()["code"]) == (413, "too_large")
    at = api.generic("POST", "/api/v1/messages", padded(head, LIMIT), "application/json")
    assert at.status_code != 413 and at.json()["code"] != "too_large"


async def test_it_refuses_one_byte_over_on_mcp_and_takes_the_limit_itself(token):
    status, body = await post_mcp(token, mcp_initialize(LIMIT + 1))
    rest = await sync_to_async(ApiClient(token).generic)(
        "POST", "/api/v1/messages", padded({}, LIMIT + 1), "application/json"
    )
    assert (status, json.loads(body)) == (413, rest.json())  # the same refusal, word for word
    manager = asyncio.create_task(run_mcp_session_manager())
    try:
        status, body = await post_mcp(token, mcp_initialize(LIMIT))
    finally:
        manager.cancel()
        await asyncio.gather(manager, return_exceptions=True)
    assert status == 200 and b'"serverInfo"' in body
    assert "crosstalk.mcp.sessions" in LOADED
