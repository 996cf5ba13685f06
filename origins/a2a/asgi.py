"""/a2a/<origin id>/, loaded by origins.a2a.routing on the first such request: the agent
card (GET .well-known/agent-card.json) and the JSON-RPC endpoint (POST), answered by the
a2a-sdk's dispatcher with the origin in the call's state. An unknown, disabled or non-A2A origin,
or one of a deactivated account, answers the same 404 as a missing one; a wrong or missing
bearer token 401. Django's middleware does not run here, so this face checks the Host against
ALLOWED_HOSTS itself, reads at most ORIGIN_MAX_BODY_BYTES of JSON nested at most 64 deep
(origins.bodies), and notes when its client goes away (the executor stops waiting then)."""

import asyncio
import hmac
import re
from functools import cache

from a2a.auth.user import User
from a2a.server.context import ServerCallContext
from a2a.server.jsonrpc_models import InternalError, JSONRPCError
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.utils.errors import A2AError
from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from starlette.requests import Request
from starlette.responses import JSONResponse

from kernel.refusals import Refusal
from origins.a2a.card import card_for, shared_card
from origins.a2a.executor import CLIENT_GONE, ChatExecutor
from origins.a2a.routing import PREFIX
from origins.a2a.store import DatabaseTaskStore
from origins.bodies import check_depth, too_large
from origins.models import Origin
from origins.selectors import get_serving_origin

CARD = "/.well-known/agent-card.json"


class OriginUser(User):
    def __init__(self, origin) -> None:
        self.origin = origin

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def user_name(self) -> str:
        return self.origin.public_id


class OriginContext(DefaultServerCallContextBuilder):
    """The SDK's context (it reads the A2A-Version header from it) with the origin the
    router authenticated: tasks are stored and found per origin."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state["origin"] = request.scope["crosstalk_origin"]
        context.state[CLIENT_GONE] = request.scope["crosstalk_gone"]
        return context

    def build_user(self, request: Request) -> User:
        return OriginUser(request.scope["crosstalk_origin"])


class Dispatcher(JsonRpcDispatcher):
    """The SDK's dispatcher, but an unexpected error is answered -32603 "Internal error"
    without its text (a database's words say how the server is built); the SDK logs it."""

    def _generate_error_response(self, request_id, error):
        if isinstance(error, InternalError) or not isinstance(error, A2AError | JSONRPCError):
            error = InternalError()
        return super()._generate_error_response(request_id, error)


@cache
def dispatcher() -> JsonRpcDispatcher:
    """One handler per process: it keeps the running tasks' event queues, so a stream
    and a later tasks/resubscribe meet in it."""
    handler = DefaultRequestHandler(
        agent_executor=ChatExecutor(),
        task_store=DatabaseTaskStore(),
        agent_card=shared_card(),
    )
    return Dispatcher(handler, OriginContext(), enable_v0_3_compat=True)


def find_origin(public_id: str) -> Origin | None:
    try:
        return get_serving_origin(public_id, kinds=[Origin.Kind.A2A])
    except Refusal:  # answered below with this face's own sentence
        return None


def refused(refusal: Refusal) -> JSONResponse:
    return JSONResponse(refusal.as_json(), status_code=refusal.status)


NOT_FOUND = Refusal("not_found", "There is no such A2A agent here.")
NOT_AUTHENTICATED = Refusal(
    "not_authenticated", "Send the origin's token as 'Authorization: Bearer <token>'."
)
BAD_HOST = Refusal("invalid_input", "The Host header names no host this server answers for.")


def bearer(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def host_allowed(request: Request) -> bool:
    domain, _port = split_domain_port(request.headers.get("host", ""))
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def endpoint_url(request: Request, origin) -> str:
    """The card's URL: the admin's CROSSTALK_PUBLIC_URL, else this (validated) host's."""
    base = settings.CROSSTALK_PUBLIC_URL or str(request.base_url)
    return base.rstrip("/") + f"{PREFIX}{origin.public_id}/"


def watched(receive, gone: asyncio.Event):
    """`receive`, noting the client's disconnect in `gone`."""

    async def receive_watched():
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
        return message

    return receive_watched


async def serve_a2a(scope, receive, send, match: re.Match) -> None:
    gone = asyncio.Event()
    receive = watched(receive, gone)
    response = await answer(scope, receive, match, gone)
    if response is not None:
        await response(scope, receive, send)


async def answer(scope, receive, match: re.Match, gone: asyncio.Event):
    request = Request(scope, receive)
    if not host_allowed(request):
        return refused(BAD_HOST)
    origin = await sync_to_async(find_origin)(match["origin"])
    rest = match["rest"] or "/"
    if origin is None:
        return refused(NOT_FOUND)
    if rest == CARD and request.method == "GET":
        return JSONResponse(card_for(origin, endpoint_url(request, origin)))
    if rest != "/":
        return refused(NOT_FOUND)
    if request.method != "POST":
        return refused(Refusal("method_not_allowed", "POST JSON-RPC requests here."))
    if not hmac.compare_digest(bearer(request).encode(), origin.secret.encode()):
        return refused(NOT_AUTHENTICATED)
    body = await read_body(request, receive)
    if body is None:  # the client went away: nobody to answer
        return None
    if isinstance(body, Refusal):
        return refused(body)
    scope["crosstalk_origin"], scope["crosstalk_gone"] = origin, gone
    replay = replayed(body, receive)
    return await until_gone(dispatcher().handle_requests(Request(scope, replay)), replay, gone)


async def read_body(request: Request, receive) -> bytes | Refusal | None:
    """The JSON-RPC body, bounded and not nested too deep; None if the client went away."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        declared = 0
    if refusal := too_large(declared):
        return refusal
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        size, more = size + len(chunks[-1]), message.get("more_body", False)
        if refusal := too_large(size):
            return refusal
    body = b"".join(chunks)
    try:
        check_depth(body)
    except Refusal as refusal:
        return refusal
    return body


def replayed(body: bytes, receive):
    """A receive that hands the SDK the body already read, then the client's messages."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay():
        return pending.pop() if pending else await receive()

    return replay


async def until_gone(handling, receive, gone: asyncio.Event):
    """Awaits `handling` while listening for the client's disconnect, which sets `gone`: a
    blocking call's executor then stops waiting for the turn (origins.a2a.executor)."""

    async def listen() -> None:
        while not gone.is_set():
            await receive()

    listener = asyncio.ensure_future(listen())
    try:
        return await handling
    finally:
        listener.cancel()
