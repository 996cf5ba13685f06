"""Streamable HTTP at /mcp (and /mcp/, never a redirect), in front of Django.

The SDK's session manager needs a long-lived task group; Daphne sends no lifespan,
so `run_mcp_session_manager` is one of the background services each server process
starts once. A request authenticates first (401 JSON without a valid secret), then
the manager serves it with the secret in its scope, and the tools check it again."""

import asyncio
import json

from asgiref.sync import sync_to_async
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from chats.api import Caller, caller_for_secret
from chats.refusals import Refusal
from peers.mcp.server import BEARER_IN_SCOPE, build_server

MCP_PATHS = {"/mcp", "/mcp/"}
START_SECONDS = 10  # how long a request waits for the manager of a process that just started
MAX_BODY = 1024 * 1024  # far above the longest message; bigger bodies get 413 too_large


class ManagerSlot:
    """The running manager of this process, and an event per event loop that says so."""

    def __init__(self) -> None:
        self.manager: StreamableHTTPSessionManager | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started: asyncio.Event | None = None

    def event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop, self.started, self.manager = loop, asyncio.Event(), None
        return self.started


SLOT = ManagerSlot()


async def run_mcp_session_manager() -> None:
    """A background service: runs the session manager until cancelled."""
    manager = StreamableHTTPSessionManager(app=build_server(), max_request_body_size=MAX_BODY)
    started = SLOT.event()
    async with manager.run():
        SLOT.manager = manager
        started.set()
        try:
            await asyncio.Future()  # until the process stops
        finally:
            SLOT.manager = None
            started.clear()


async def running_manager() -> StreamableHTTPSessionManager | None:
    try:
        await asyncio.wait_for(SLOT.event().wait(), START_SECONDS)
    except TimeoutError:
        return None
    return SLOT.manager


def header(scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return ""


def bearer(scope) -> str:
    scheme, _, secret = header(scope, b"authorization").partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def too_large(scope) -> bool:
    """By its Content-Length; a chunked body over the limit is the SDK's to refuse (413)."""
    length = header(scope, b"content-length")
    return length.isdigit() and int(length) > MAX_BODY


def principal(caller: Caller) -> AuthenticatedUser:
    """Who owns a session: a session is served only to the credential that opened it."""
    who = f"chat:{caller.chat.pk}" if caller.chat is not None else f"user:{caller.user.pk}"
    return AuthenticatedUser(AccessToken(token="", client_id=who, scopes=[]))  # noqa: S106


async def serve_mcp(scope, receive, send) -> None:
    if too_large(scope):
        await send_refusal(send, Refusal("too_large", f"Send at most {MAX_BODY} bytes."))
        return
    secret = bearer(scope)
    caller = await sync_to_async(caller_for_secret)(secret)
    if caller is None:
        refusal = Refusal(
            "not_authenticated",
            "Send Authorization: Bearer with a chat's agent key or a personal API token.",
        )
        await send_refusal(send, refusal, headers=[(b"www-authenticate", b"Bearer")])
        return
    manager = await running_manager()
    if manager is None:
        refusal = Refusal("server_error", "The MCP server is not running; try again.")
        await send_refusal(send, refusal, status=503)
        return
    scope = {**scope, "path": "/mcp", BEARER_IN_SCOPE: secret, "user": principal(caller)}
    await manager.handle_request(scope, receive, send)


async def send_refusal(send, refusal: Refusal, *, status=None, headers=None) -> None:
    """chats.api.refusal_response's answer, for this face below Django (raw ASGI)."""
    payload = json.dumps(refusal.as_json()).encode()
    status = status or refusal.status
    head = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
    await send({"type": "http.response.start", "status": status, "headers": head + (headers or [])})
    await send({"type": "http.response.body", "body": payload})


class McpRouter:
    """ASGI: /mcp to the MCP server, everything else to `app`."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"] in MCP_PATHS:
            await serve_mcp(scope, receive, send)
        else:
            await self.app(scope, receive, send)
