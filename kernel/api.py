"""The plumbing every JSON route shares, whoever calls it: the bearer secret of a request,
bodies that are safe to parse and store, pages of lists, refusals as JSON. Who a secret
acts as is chats.api's (it knows chats and accounts)."""

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from ninja.parser import Parser

from kernel.inputs import unsafe_text
from kernel.refusals import Refusal


def bearer_secret(request) -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def refusal_json(refusal: Refusal, *, status: int | None = None) -> tuple[int, bytes]:
    """THE JSON form of a refusal, for every face that answers JSON: its status and
    {"code", "message"}; refusal_response below Django, as is for raw ASGI (/mcp)."""
    return status or refusal.status, json.dumps(refusal.as_json()).encode()


def refusal_response(refusal: Refusal, *, status: int | None = None) -> HttpResponse:
    """refusal_json as a Django response (REST, the middleware, the staff page's metrics)."""
    status, body = refusal_json(refusal, status=status)
    return HttpResponse(body, status=status, content_type="application/json")


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
