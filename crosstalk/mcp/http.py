"""Streamable HTTP at /mcp (and /mcp/, never a redirect), in front of Django.

The SDK's session manager needs a long-lived task group; Daphne sends no lifespan,
so `run_mcp_session_manager` is one of the background services each server process
starts once. It waits for the first request to /mcp before it loads the SDK
(crosstalk.mcp.sessions, through kernel.lazy). A request authenticates first (401 JSON
without a valid secret), then the manager serves it with the secret in its scope, and
the tools check it again."""

import asyncio

from asgiref.sync import sync_to_async
from django.conf import settings

from chats.api import caller_for_secret
from kernel.api import refusal_json, too_large
from kernel.lazy import load
from kernel.refusals import Refusal

SESSIONS = "crosstalk.mcp.sessions"  # the SDK's side: loaded on the first request to /mcp

MCP_PATHS = {"/mcp", "/mcp/"}
START_SECONDS = 30  # how long a request waits for the manager to start (the SDK loads first)


class ManagerSlot:
    """The running manager of this process, and per event loop an event that says a
    request wants it and one that says it runs."""

    def __init__(self) -> None:
        self.manager = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.wanted: asyncio.Event | None = None
        self.started: asyncio.Event | None = None

    def events(self) -> tuple[asyncio.Event, asyncio.Event]:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop, self.manager = loop, None
            self.wanted, self.started = asyncio.Event(), asyncio.Event()
        return self.wanted, self.started


SLOT = ManagerSlot()


async def run_mcp_session_manager() -> None:
    """A background service: from the first request to /mcp, runs the session manager
    until cancelled."""
    wanted, started = SLOT.events()
    await wanted.wait()
    # REST's limit (kernel.api): a body one face takes, the other takes too.
    manager = (await load(SESSIONS)).new_manager(max_body=settings.API_MAX_BODY_BYTES)
    async with manager.run():
        SLOT.manager = manager
        started.set()
        try:
            await asyncio.Future()  # until the process stops
        finally:
            SLOT.manager = None
            started.clear()


async def running_manager():
    """The session manager, started for the first request; None if it does not come up."""
    wanted, started = SLOT.events()
    wanted.set()
    try:
        await asyncio.wait_for(started.wait(), START_SECONDS)
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


def declared_too_large(scope) -> bool:
    """By its Content-Length; a chunked body over the limit is the SDK's to refuse (413),
    with the same limit (run_mcp_session_manager)."""
    length = header(scope, b"content-length")
    return length.isdigit() and int(length) > settings.API_MAX_BODY_BYTES


async def serve_mcp(scope, receive, send) -> None:
    if declared_too_large(scope):
        await send_refusal(send, too_large())
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
    sessions = await load(SESSIONS)
    scope = {**scope, "path": "/mcp", sessions.BEARER_IN_SCOPE: secret}
    scope["user"] = sessions.principal(caller)
    await manager.handle_request(scope, receive, send)


async def send_refusal(send, refusal: Refusal, *, status=None, headers=None) -> None:
    """kernel.api.refusal_response's answer, for this face below Django (raw ASGI)."""
    status, payload = refusal_json(refusal, status=status)
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
