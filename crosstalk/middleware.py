"""Hostile requests end here before any view or query sees them, and everything under
/api/v1/ answers JSON: Django's own 400/403/404/500 pages and the CSRF page included."""

import logging

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from chats.api import invalid_characters, too_large, unsafe_text

logger = logging.getLogger(__name__)

API_PREFIX = "/api/v1"
CODE_BY_STATUS = {
    400: ("invalid_input", "The request could not be read."),
    401: ("not_authenticated", "Send Authorization: Bearer with your secret."),
    403: ("forbidden", "This route does not take that request."),
    404: ("not_found", "No such API route or object."),
    405: ("method_not_allowed", "This route does not take that method."),
    413: ("too_large", "The body is too large."),
    500: ("server_error", "Something went wrong on our side; it was logged. Try again."),
}


class ApiGuardMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self.acall(request)
        return refuse_early(request) or as_json(request, self.get_response(request))

    async def acall(self, request: HttpRequest) -> HttpResponse:
        return refuse_early(request) or as_json(request, await self.get_response(request))


def is_api(request: HttpRequest) -> bool:
    path = request.path
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def refuse_early(request: HttpRequest) -> HttpResponse | None:
    """A NUL or lone surrogate in the path or query, or a body declared too large."""
    api = is_api(request)
    if unsafe_text(request.path):
        return refused(invalid_characters()) if api else not_found(request)
    if any(unsafe_text(key) or unsafe_text(value) for key, value in query_items(request)):
        return refused(invalid_characters()) if api else defaults.bad_request(request, None)
    if api and declared_length(request) > settings.API_MAX_BODY_BYTES:
        return refused(too_large())
    return None


def query_items(request: HttpRequest):
    for key, values in request.GET.lists():
        for value in values:
            yield key, value


def declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def refused(refusal) -> JsonResponse:
    return JsonResponse(refusal.as_json(), status=refusal.status)


def not_found(request: HttpRequest) -> HttpResponse:
    return defaults.page_not_found(request, Http404())


def as_json(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Under /api/v1/, an error page Django or a middleware made becomes {"code", "message"}."""
    if not is_api(request) or response.status_code < 400:
        return response
    if response.get("Content-Type", "").startswith("application/json"):
        return response
    status = response.status_code
    code, message = CODE_BY_STATUS.get(status, CODE_BY_STATUS[500 if status >= 500 else 400])
    answer = JsonResponse({"code": code, "message": message}, status=status)
    if response.has_header("Allow"):
        answer["Allow"] = response["Allow"]
    return answer
