"""Django's own middleware, as Crosstalk runs it under ASGI.

Under ASGI Django sends a sync middleware's process_request and process_response to a
worker thread, a trip each, for every request: sixteen trips for an API call through
MIDDLEWARE. Here, with the same checks and the same headers:

- middleware that only reads settings and the request and sets headers (security,
  common, clickjacking, CSP) runs on the event loop, where it cannot block;
- middleware for browsers (sessions, CSRF, the logged-in user, messages) is passed by
  for an API request with a bearer secret and no cookie: without a cookie there is no
  session to load and no ambient credential for CSRF to guard, and the API
  authenticates by the bearer secret alone (every router's auth is a bearer class).
  A request with any cookie goes through them exactly as before."""

from asgiref.sync import sync_to_async
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpRequest
from django.middleware import clickjacking, common, csp, csrf, security

from crosstalk.middleware import is_api
from kernel.api import bearer_secret


def bearer_without_cookies(request: HttpRequest) -> bool:
    return is_api(request) and bool(bearer_secret(request)) and not request.COOKIES


class OnTheEventLoop:
    """For a MiddlewareMixin whose hooks never block (no database, no session, no I/O):
    both hooks called in place instead of in a thread."""

    async def __acall__(self, request: HttpRequest):
        response = self.process_request(request) if hasattr(self, "process_request") else None
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response


class ForBrowsers:
    """For a MiddlewareMixin that serves cookie-carrying browsers: passed by for an API
    request with a bearer secret and no cookie, sync (tests) and async alike."""

    def __call__(self, request: HttpRequest):
        if not self.async_mode and bearer_without_cookies(request):
            return self.get_response(request)
        return super().__call__(request)

    async def __acall__(self, request: HttpRequest):
        if bearer_without_cookies(request):
            return await self.get_response(request)
        return await super().__acall__(request)


class SecurityMiddleware(OnTheEventLoop, security.SecurityMiddleware):
    pass


class CommonMiddleware(OnTheEventLoop, common.CommonMiddleware):
    pass


class XFrameOptionsMiddleware(OnTheEventLoop, clickjacking.XFrameOptionsMiddleware):
    pass


class ContentSecurityPolicyMiddleware(OnTheEventLoop, csp.ContentSecurityPolicyMiddleware):
    pass


class SessionMiddleware(ForBrowsers, sessions.SessionMiddleware):
    pass


class AuthenticationMiddleware(ForBrowsers, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(ForBrowsers, messages.MessageMiddleware):
    pass


class CsrfViewMiddleware(ForBrowsers, csrf.CsrfViewMiddleware):
    def __init__(self, get_response) -> None:
        super().__init__(get_response)
        if self.async_mode:
            # The handler looks process_view up once and sends a sync one to a thread.
            self.process_view = self.process_view_on_the_loop

    async def process_view_on_the_loop(self, request, callback, callback_args, callback_kwargs):
        """Django's process_view; its first two answers (done already, an exempt view:
        every API route) given without a thread."""
        done = getattr(request, "csrf_processing_done", False)
        if done or getattr(callback, "csrf_exempt", False):
            return None
        check = sync_to_async(super().process_view, thread_sensitive=True)
        return await check(request, callback, callback_args, callback_kwargs)
