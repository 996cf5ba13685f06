"""/a2a/<origin id>/, loaded by origins.a2a.routing on the first such request: the agent
card (GET .well-known/agent-card.json) and the JSON-RPC endpoint (POST), answered by the
a2a-sdk's dispatcher with the origin in the call's state. An unknown, disabled or non-A2A origin
answers the same 404 as a missing one; a wrong or missing bearer token 401."""

import hmac
import re
from functools import cache

from a2a.auth.user import User
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from asgiref.sync import sync_to_async
from starlette.requests import Request
from starlette.responses import JSONResponse

from chats.refusals import Refusal
from origins.a2a.card import card_for, shared_card
from origins.a2a.executor import ChatExecutor
from origins.a2a.routing import PREFIX
from origins.a2a.store import DatabaseTaskStore
from origins.models import Origin

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
        return context

    def build_user(self, request: Request) -> User:
        return OriginUser(request.scope["crosstalk_origin"])


@cache
def dispatcher() -> JsonRpcDispatcher:
    """One handler per process: it keeps the running tasks' event queues, so a stream
    and a later tasks/resubscribe meet in it."""
    handler = DefaultRequestHandler(
        agent_executor=ChatExecutor(),
        task_store=DatabaseTaskStore(),
        agent_card=shared_card(),
    )
    return JsonRpcDispatcher(handler, OriginContext(), enable_v0_3_compat=True)


def find_origin(public_id: str):
    return (
        Origin.objects.filter(public_id=public_id, kind=Origin.Kind.A2A, enabled=True)
        .select_related("user")
        .first()
    )


def refused(refusal: Refusal) -> JSONResponse:
    return JSONResponse(refusal.as_json(), status_code=refusal.status)


NOT_FOUND = Refusal("not_found", "There is no such A2A agent here.")
NOT_AUTHENTICATED = Refusal(
    "not_authenticated", "Send the origin's token as 'Authorization: Bearer <token>'."
)


def bearer(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


async def serve_a2a(scope, receive, send, match: re.Match) -> None:
    response = await answer(scope, receive, match)
    await response(scope, receive, send)


async def answer(scope, receive, match: re.Match):
    request = Request(scope, receive)
    origin = await sync_to_async(find_origin)(match["origin"])
    rest = match["rest"] or "/"
    if origin is None or origin.user is None or not origin.user.is_active:
        return refused(NOT_FOUND)
    if rest == CARD and request.method == "GET":
        endpoint = str(request.base_url).rstrip("/") + f"{PREFIX}{origin.public_id}/"
        return JSONResponse(card_for(origin, endpoint))
    if rest != "/":
        return refused(NOT_FOUND)
    if request.method != "POST":
        return refused(Refusal("method_not_allowed", "POST JSON-RPC requests here."))
    if not hmac.compare_digest(bearer(request).encode(), origin.secret.encode()):
        return refused(NOT_AUTHENTICATED)
    scope["crosstalk_origin"] = origin
    return await dispatcher().handle_requests(request)
