"""The plumbing every JSON route under /api/v1/ shares: who a bearer secret acts as,
bodies that are safe to parse and store, pages of lists, refusals as JSON.
The routes themselves are ninja routers (chats.api_views, peers.api_views),
assembled with the error handlers in crosstalk.api."""

import json
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from ninja.parser import Parser
from ninja.security import HttpBearer

from accounts.actions import user_for_api_token
from chats.inputs import unsafe_text
from chats.models import Chat
from chats.refusals import Refusal
from chats.selectors import chat_for_agent_key


@dataclass(frozen=True, slots=True)
class Caller:
    user: object
    chat: Chat | None = None  # set when an agent key called: the agent acts as this chat


def bearer_secret(request) -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def authenticate(request) -> Caller | None:
    return caller_for_secret(bearer_secret(request))


def caller_for_secret(secret: str) -> Caller | None:
    """Who a bearer secret acts as (REST and MCP): a chat's agent, a person, or nobody."""
    if not secret:
        return None
    if secret.startswith("cak_"):
        chat = chat_for_agent_key(secret)
        return Caller(user=chat.user, chat=chat) if chat and chat.user.is_active else None
    user = user_for_api_token(secret)
    return Caller(user=user) if user else None


def refusal_response(refusal: Refusal, *, status: int | None = None) -> JsonResponse:
    """THE JSON form of a refusal, for every face that answers JSON (REST, the
    middleware, the staff page's metrics): {"code", "message"} and its status."""
    return JsonResponse(refusal.as_json(), status=status or refusal.status)


class Credential(HttpBearer):
    """Bearer auth of one kind of caller (ninja): the caller becomes request.auth; a
    missing, unknown or wrong-kind secret is refused as not_authenticated."""

    agent = False
    whose = "a personal API token"

    def __call__(self, request) -> Caller:
        caller = authenticate(request)
        if caller is None or self.agent != (caller.chat is not None):
            raise Refusal("not_authenticated", f"Send Authorization: Bearer with {self.whose}.")
        return caller

    def authenticate(self, request, token: str) -> Caller | None:
        return caller_for_secret(token)


class PersonToken(Credential):
    """Your personal API token: acts as you."""


class AgentKey(Credential):
    """A chat's agent key: acts as that chat's agent and nothing else."""

    agent = True
    whose = "the chat's agent key"


# Deeper than any input model goes; past it a body is refused, not parsed further.
MAX_JSON_DEPTH = 32


def invalid_characters() -> Refusal:
    return Refusal("invalid_input", "Text may not contain NUL characters or lone surrogates.")


def too_large() -> Refusal:
    limit = settings.API_MAX_BODY_BYTES
    return Refusal(
        "too_large", f"Send at most {limit} bytes of JSON, nested at most {MAX_JSON_DEPTH} deep."
    )


def json_body(request) -> dict:
    """The request's JSON object, every string in it safe to store."""
    try:
        body = request.body
    except RequestDataTooBig:
        raise too_large() from None
    if not body:
        return {}
    if len(body) > settings.API_MAX_BODY_BYTES:
        raise too_large()
    try:
        data = json.loads(body)
    except RecursionError:
        raise too_large() from None
    except (ValueError, UnicodeDecodeError):
        raise Refusal("invalid_input", "The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise Refusal("invalid_input", "Send a JSON object.")
    check_json_values(data)
    return data


class SafeParser(Parser):
    """ninja's body parser, with json_body's refusals."""

    def parse_body(self, request) -> dict:
        return json_body(request)


def check_json_values(data) -> None:
    """Refuse unsafe strings (keys too) and deep nesting; iterative, so depth costs no stack."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if unsafe_text(value):
                raise invalid_characters()
        elif isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise too_large()
            if isinstance(value, dict):
                stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in iter_values(value))


def iter_values(container: dict | list):
    return container.values() if isinstance(container, dict) else container


def page(queryset, render, limit: int, offset: int) -> dict:
    """A list as JSON (REST and MCP): one page of items and the total count."""
    limit = min(limit, 100)  # its floor and offset's bounds are the types' (chats.inputs)
    return {
        "items": [render(item) for item in queryset[offset : offset + limit]],
        "count": queryset.count(),
    }


@csrf_exempt  # a POST to an unknown route is a 404, not the CSRF page
def api_not_found(request, rest=""):
    return refusal_response(
        Refusal("not_found", "No such API route. The routes are listed at /api/v1/docs.")
    )
