"""What a request pays on its way through Django under ASGI (crosstalk.handlers,
crosstalk.django_middleware), and what it keeps: CSRF wherever a cookie could
authenticate, the same headers, and an API send that goes to a thread four times."""

import asyncio
import json
import threading

import pytest
from asgiref import sync
from django.test import AsyncClient, Client, RequestFactory

from accounts.models import ApiToken
from crosstalk.api import api
from crosstalk.django_middleware import bearer_without_cookies
from crosstalk.handlers import PooledThreadsASGIHandler, RequestThreads
from peers.models import PeerMessage
from tests.peers.conftest import reachable

SECURITY_HEADERS = (
    "Content-Security-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "X-Frame-Options",
    "Cross-Origin-Opener-Policy",
)


# A cookie never authenticates an API call; CSRF still guards what one does -----------


def test_it_every_api_operation_takes_only_a_bearer_secret():
    """So the browser middleware has nothing to do for an API call without a cookie."""
    schema = api.get_openapi_schema()
    schemes = schema["components"]["securitySchemes"]
    assert schemes and all(s == {"type": "http", "scheme": "bearer"} for s in schemes.values())
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("security"), f"{method.upper()} {path} takes no bearer secret"


def test_it_a_session_cookie_does_not_authenticate_an_api_post(owner, other_chat):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    body = json.dumps({"to_chat": str(other_chat.pk), "text": "from a forged form"})
    response = client.post("/api/v1/messages", body, content_type="application/json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert not PeerMessage.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_csrf_still_refuses_a_cookie_post_without_its_token_under_asgi(owner):
    async def post():
        client = AsyncClient(enforce_csrf_checks=True)
        await client.aforce_login(owner)
        return await client.post("/settings/tokens/", {"name": "forged"})

    response = asyncio.run(post())
    assert response.status_code == 403
    assert not ApiToken.objects.exists()


def test_it_only_an_api_request_with_a_bearer_secret_and_no_cookie_passes_them_by():
    factory = RequestFactory()
    bearer = {"HTTP_AUTHORIZATION": "Bearer cak_x"}
    assert bearer_without_cookies(factory.post("/api/v1/agent/messages", **bearer))
    assert not bearer_without_cookies(
        factory.post("/api/v1/agent/messages", HTTP_COOKIE="sessionid=abc", **bearer)
    )
    assert not bearer_without_cookies(factory.post("/api/v1/agent/messages"))
    assert not bearer_without_cookies(
        factory.post("/api/v1/agent/messages", HTTP_AUTHORIZATION="Bearer ")
    )
    assert not bearer_without_cookies(factory.post("/settings/tokens/", **bearer))


# Through the ASGI handler: trips to a thread, threads, headers --------------------------


async def asgi_call(app, path: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> dict:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    sent = []

    async def receive():
        if incoming:
            return incoming.pop()
        await asyncio.Event().wait()  # no disconnect: Django cancels its listener

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return {
        "status": start["status"],
        "headers": {k.decode().title(): v.decode() for k, v in start["headers"]},
    }


@pytest.fixture
def trips(monkeypatch):
    """The name of each function sent to a thread (asgiref's sync_to_async), in order."""
    names = []
    trip = sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        names.append(getattr(self.func, "__qualname__", type(self.func).__name__))
        return await trip(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)
    return names


@pytest.fixture
def started_threads(monkeypatch):
    started = []
    start = threading.Thread.start

    def counted(self):
        started.append(self.name)
        return start(self)

    monkeypatch.setattr(threading.Thread, "start", counted)
    return started


def send_body(to, n: int) -> bytes:
    return json.dumps({"to": str(to.pk), "text": f"port? {n}", "wait_seconds": 0}).encode()


@pytest.mark.django_db(transaction=True)
def test_it_an_agent_send_goes_to_a_thread_four_times_and_starts_none(
    chat, other_chat, trips, started_threads
):
    reachable(chat, other_chat)
    app = PooledThreadsASGIHandler(RequestThreads())
    bearer = [(b"authorization", f"Bearer {chat.agent_key}".encode())]

    async def two_sends():
        first = await asgi_call(app, "/api/v1/agent/messages", send_body(other_chat, 1), bearer)
        trips.clear()
        started_threads.clear()
        await asyncio.sleep(0.05)  # the first request's thread back in the pool
        second = await asgi_call(app, "/api/v1/agent/messages", send_body(other_chat, 2), bearer)
        return first, second

    first, second = asyncio.run(two_sends())
    assert first["status"] == second["status"] == 201
    # request_started's receivers, authentication, the send, request_finished's.
    assert trips == [
        "Signal.asend.<locals>.sync_send",
        "AgentKey",
        "send_now",
        "HttpResponseBase.close",
    ]
    assert started_threads == []  # the first request's thread served the second
    assert PeerMessage.objects.count() == 2
    for name in SECURITY_HEADERS:
        assert second["headers"].get(name), name


@pytest.mark.django_db(transaction=True)
def test_it_a_cookie_request_still_goes_through_the_browser_middleware(chat, other_chat, trips):
    reachable(chat, other_chat)
    app = PooledThreadsASGIHandler(RequestThreads())
    headers = [
        (b"authorization", f"Bearer {chat.agent_key}".encode()),
        (b"cookie", b"sessionid=not-a-session"),
    ]
    answer = asyncio.run(
        asgi_call(app, "/api/v1/agent/messages", send_body(other_chat, 1), headers)
    )
    assert answer["status"] == 201  # the bearer secret, not the cookie, authenticates
    for middleware in ("SessionMiddleware", "CsrfViewMiddleware", "MessageMiddleware"):
        assert any(name.startswith(middleware) for name in trips), middleware
    assert not any(name.startswith(("SecurityMiddleware", "CommonMiddleware")) for name in trips)


# The pool of request threads -----------------------------------------------------------


def test_it_a_thread_is_lent_again_only_once_its_work_has_run():
    threads = RequestThreads(keep=2)
    busy = threads.lend()
    release = threading.Event()
    busy.submit(release.wait)  # a request whose client went away left this running
    threads.give_back(busy)
    other = threads.lend()
    assert other is not busy
    release.set()
    busy.submit(int).result()  # its queue has drained
    threads.give_back(other)
    other.submit(int).result()
    assert {id(e) for e in threads.idle} == {id(busy), id(other)}
    for executor in threads.idle:
        executor.shutdown()


def test_it_threads_past_the_kept_number_are_let_go():
    threads = RequestThreads(keep=1)
    first, second = threads.lend(), threads.lend()
    threads.give_back(first)
    first.submit(int).result()
    threads.give_back(second)
    second.shutdown(wait=True)  # returns once its thread ran the give-back and ended
    assert threads.idle == [first]
    first.shutdown()
