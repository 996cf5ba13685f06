"""The plumbing every JSON route under /api/v1/ shares: bearer auth, JSON in and
out, refusals as {"code", "message"}, no trailing-slash redirects."""

import json
from dataclasses import dataclass

from django.http import Http404, JsonResponse
from django.urls import re_path
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from accounts.actions import user_for_api_token
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


def refusal_response(refusal: Refusal) -> JsonResponse:
    return JsonResponse(refusal.as_json(), status=refusal.status)


@method_decorator(csrf_exempt, name="dispatch")
class ApiView(View):
    """Subclasses define get/post/patch(self, request, caller, **kwargs) returning
    (status, body) or a body; `caller_kind` says whose secret the route takes."""

    caller_kind = "person"  # or "agent"
    http_method_names = ["get", "post", "patch", "put", "delete"]

    def dispatch(self, request, *args, **kwargs):
        try:
            return self.answer(request, **kwargs)
        except Refusal as refusal:
            return refusal_response(refusal)
        except Http404:
            return refusal_response(Refusal("not_found", "No such route or object."))

    def answer(self, request, **kwargs):
        handler = getattr(self, request.method.lower(), None)
        if handler is None or request.method.lower() not in self.http_method_names:
            allowed = [m.upper() for m in self.http_method_names if hasattr(self, m)]
            response = refusal_response(
                Refusal("method_not_allowed", f"Use {', '.join(allowed)} here.")
            )
            response["Allow"] = ", ".join(allowed)
            return response
        caller = authenticate(request)
        if caller is None or (self.caller_kind == "agent") != (caller.chat is not None):
            raise self.unauthenticated()
        result = handler(request, caller, **kwargs)
        status, body = result if isinstance(result, tuple) else (200, result)
        return JsonResponse(body, status=status, safe=False)

    def unauthenticated(self) -> Refusal:
        whose = "the chat's agent key" if self.caller_kind == "agent" else "a personal API token"
        return Refusal("not_authenticated", f"Send Authorization: Bearer with {whose}.")


def json_body(request) -> dict:
    if not request.body:
        return {}
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        raise Refusal("invalid_input", "The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise Refusal("invalid_input", "Send a JSON object.")
    return data


def page_params(request) -> tuple[int, int]:
    try:
        limit = int(request.GET.get("limit", 50))
        offset = int(request.GET.get("offset", 0))
    except ValueError:
        raise Refusal("invalid_input", "limit and offset must be whole numbers.") from None
    return page_bounds(limit, offset)


def page_bounds(limit: int, offset: int) -> tuple[int, int]:
    if offset < 0 or limit < 1:
        raise Refusal("invalid_input", "limit must be at least 1 and offset at least 0.")
    return min(limit, 100), offset


def paginated(request, queryset, render) -> dict:
    return page(queryset, render, *page_params(request))


def page(queryset, render, limit: int, offset: int) -> dict:
    """A list as JSON (REST and MCP): one page of items and the total count."""
    limit, offset = page_bounds(limit, offset)
    return {
        "items": [render(item) for item in queryset[offset : offset + limit]],
        "count": queryset.count(),
    }


def api_path(route: str, view, name: str | None = None):
    """`route` is a regex without the slash; the slash is optional, never a redirect."""
    return re_path(rf"^{route}/?$", view, name=name)


def api_not_found(request, rest=""):
    return refusal_response(Refusal("not_found", "No such API route. See CONTRACT.md."))
