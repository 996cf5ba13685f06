"""Login throttling with django-axes: the backend that checks a lockout before any password,
and the answer a locked-out login gets (the login page, or JSON for API clients)."""

import math

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from kernel.refusals import Refusal

STATUS = 429


class LoginThrottleBackend(AxesStandaloneBackend):
    """Axes' check, for logins made over HTTP. Without a request (manage.py commands, an
    operator's shell) there is no address to lock out: the next backend decides alone."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return (
        request.path.startswith("/api/")
        or request.headers.get("X-Requested-With") == "XMLHttpRequest"
        or request.content_type == "application/json"
        or ("application/json" in accept and "text/html" not in accept)
    )


def lockout_response(request: HttpRequest, *args) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE. Every failure during a lockout starts the cool-off over
    (axes' default), so the person may try again one cool-off from now."""
    cool_off = get_cool_off(request)
    retry_at = timezone.now() + cool_off
    seconds = math.ceil(cool_off.total_seconds())
    minutes = math.ceil(seconds / 60)
    message = (
        f"Too many failed logins. Try again after {retry_at:%H:%M} UTC "
        f"(in {minutes} minute{'s' if minutes != 1 else ''})."
    )
    if wants_json(request):
        # The refusal's own shape, and when to try again.
        body = Refusal("too_many_attempts", message).as_json()
        body |= {"retry_after": seconds, "retry_at": retry_at.isoformat()}
        response = JsonResponse(body, status=STATUS)
    else:
        context = {
            "form": AuthenticationForm(request),
            "lockout": message,
            "signup_open": settings.SIGNUP,
        }
        response = render(request, "accounts/login.html", context, status=STATUS)
    response["Retry-After"] = str(seconds)
    return response
