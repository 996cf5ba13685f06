"""Hostile requests end here before any view or query sees them, and everything under
/api/v1/ answers JSON: Django's own 400/403/404/500 pages and the CSRF page included."""

import hashlib
import json
from functools import partial

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from chats.api import Caller
from kernel.api import bearer_secret, invalid_characters, refusal_response, too_large
from kernel.idempotency import arun_once, run_once
from kernel.inputs import unsafe_text
from kernel.refusals import Refusal
from peers.actions import record_refusal
from peers.serializers import REPLAYS, replay_message

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


class Middleware:
    """Sync and async alike, so async views (waiting calls) keep holding no thread."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)


class ApiGuardMiddleware(Middleware):
    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self.acall(request)
        early = refuse_early(request)
        if early:
            return early
        response = self.get_response(request)
        record_refused_input(request)
        return as_json(request, response)

    async def acall(self, request: HttpRequest) -> HttpResponse:
        early = refuse_early(request)
        if early:
            return early
        response = await self.get_response(request)
        if getattr(request, "refused_input", None):
            await sync_to_async(record_refused_input)(request)
        return as_json(request, response)


def record_refused_input(request: HttpRequest) -> None:
    """A body or query the API could not read (crosstalk.api) is activity too, once the
    caller is known; recorded here, after the answer, so async routes need no thread."""
    refusal = getattr(request, "refused_input", None)
    caller = getattr(request, "auth", None)
    if refusal is not None and isinstance(caller, Caller):
        record_refusal(caller.user, refusal, chat_id=getattr(caller.chat, "pk", None))


def is_api(request: HttpRequest) -> bool:
    path = request.path
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def refuse_early(request: HttpRequest) -> HttpResponse | None:
    """A NUL or lone surrogate in the path or query, or a body declared too large."""
    api = is_api(request)
    if unsafe_text(request.path):
        return refusal_response(invalid_characters()) if api else not_found(request)
    if any(unsafe_text(key) or unsafe_text(value) for key, value in query_items(request)):
        return (
            refusal_response(invalid_characters()) if api else defaults.bad_request(request, None)
        )
    if api and declared_length(request) > settings.API_MAX_BODY_BYTES:
        return refusal_response(too_large())
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
    answer = refusal_response(Refusal(code, message), status=status)
    if response.has_header("Allow"):
        answer["Allow"] = response["Allow"]
    return answer


class IdempotencyMiddleware(Middleware):
    """A POST under /api/v1/ with Idempotency-Key runs once per credential and key;
    a retry gets the first answer (kernel.idempotency), marked Idempotent-Replayed."""

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self.acall(request)
        key, secret = idempotency_of(request)
        if key is None:
            return self.get_response(request)
        first: list[HttpResponse] = []
        run = lambda: answer_of(self.get_response(request), first)  # noqa: E731
        try:
            answer = run_once(
                secret, key, run, request=describe(request), replay=replay_for(request)
            )
        except ANSWERED_EARLY as early:
            return early_answer(early)
        return first[0] if first else replayed(answer)

    async def acall(self, request: HttpRequest) -> HttpResponse:
        key, secret = idempotency_of(request)
        if key is None:
            return await self.get_response(request)
        first: list[HttpResponse] = []

        async def run():
            return answer_of(await self.get_response(request), first)

        try:
            answer = await arun_once(
                secret, key, run, request=describe(request), replay=replay_for(request)
            )
        except ANSWERED_EARLY as early:
            return early_answer(early)
        return first[0] if first else replayed(answer)


class NotKept(Exception):  # noqa: N818 (a signal, not an error)
    """An answer that is no JSON: passed on as it is, and the claim released."""

    def __init__(self, response: HttpResponse) -> None:
        self.response = response


ANSWERED_EARLY = (RequestDataTooBig, Refusal, NotKept)


def early_answer(early: Exception) -> HttpResponse:
    """The answer for what ended a keyed request before (or instead of) keeping it."""
    if isinstance(early, NotKept):
        return early.response
    return refusal_response(too_large() if isinstance(early, RequestDataTooBig) else early)


def idempotency_of(request: HttpRequest) -> tuple[str | None, str]:
    key = request.headers.get("Idempotency-Key")
    secret = bearer_secret(request)
    if key is None or request.method != "POST" or not is_api(request) or not secret:
        return None, secret
    return key, secret


def replay_for(request: HttpRequest):
    """A send's answer rebuilt from its message, for a retry whose first request died
    after the send committed (kernel.idempotency); other routes have none."""
    shape = REPLAYS.get(request.path.rstrip("/"))
    return partial(replay_message, shape) if shape else None


def describe(request: HttpRequest) -> str:
    return f"{request.method} {request.path} {hashlib.sha256(request.body).hexdigest()}"


def answer_of(response: HttpResponse, first: list[HttpResponse]) -> tuple[int, object]:
    if response.streaming or not response.get("Content-Type", "").startswith("application/json"):
        raise NotKept(response)
    first.append(response)
    return response.status_code, json.loads(response.content)


def replayed(answer: tuple[int, object]) -> JsonResponse:
    status, body = answer
    response = JsonResponse(body, status=status, safe=False)
    response["Idempotent-Replayed"] = "true"
    return response
