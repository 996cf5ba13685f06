"""Idempotency that survives a crash: a web process killed with -9 in the middle of a
keyed send — before the work, or after the work committed but before its answer was
kept — then a retry with the same key on a fresh process: exactly one message, and
the retry's answer names it. Real processes on the test database (SQLite, or
PostgreSQL + Redis in the second run); the kill point is a test-only pause
(IDEMPOTENCY_TEST_PAUSE_AT), the kill a real SIGKILL."""

import contextlib
import json
import threading

import pytest
from django.conf import settings

from accounts.actions import do_create_api_token
from chats.models import Chat
from kernel import idempotency
from kernel.idempotency import run_once
from kernel.models import IdempotentAnswer
from kernel.refusals import Refusal
from peers import actions
from peers.models import PeerMessage
from tests.peers.conftest import reachable
from tests.reliability.procs import Proc, database_url, free_port, http, stop_all

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "crash-retry-1"


@pytest.fixture
def web(redis_server, tmp_path):
    started: list[Proc] = []

    def start(name: str, **extra: str) -> str:
        port = free_port()
        env = {
            "DATABASE_URL": database_url(),
            "REDIS_URL": redis_server.url,
            "REDIS_PREFIX": f"idem-{port}",
            "SECRET_KEY": settings.SECRET_KEY,
            "IDEMPOTENCY_ABANDONED_SECONDS": "1",
            **extra,
        }
        proc = Proc(name, ["serve", "--port", str(port), "--no-runner"], env, tmp_path)
        proc.wait_for_line("Crosstalk is running")
        started.append(proc)
        return proc, f"http://127.0.0.1:{port}"

    yield start
    stop_all(started)


def routes(owner, chat, other_chat):
    _, token = do_create_api_token(owner, name="crash")
    return {
        "person": ("/api/v1/messages", token, {"to_chat": other_chat.pk, "text": "once"}),
        "agent": (
            "/api/v1/agent/messages",
            chat.agent_key,
            {"to": other_chat.pk, "text": "once", "wait_seconds": 0},
        ),
    }


def post(url: str, secret: str, body: dict, timeout: float = 90):
    headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": KEY}
    return http("POST", url, body=body, headers=headers, timeout=timeout)


def post_in_background(url: str, secret: str, body: dict) -> threading.Thread:
    def run():
        with contextlib.suppress(OSError):  # killed under it: the connection drops
            post(url, secret, body, timeout=60)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("point", ["before_work", "after_work"])
@pytest.mark.parametrize("route", ["person", "agent"])
def test_it_a_retry_after_a_kill_sends_exactly_one_message(
    web, owner, chat, other_chat, point, route
):
    reachable(chat, other_chat)
    path, secret, body = routes(owner, chat, other_chat)[route]
    first, url = web("web-1", IDEMPOTENCY_TEST_PAUSE_AT=point)
    caller = post_in_background(url + path, secret, body)
    first.wait_for_line(f"idempotency: paused {point}")
    first.kill()
    caller.join(timeout=60)

    left = 1 if point == "after_work" else 0
    assert PeerMessage.objects.count() == left
    claim = IdempotentAnswer.objects.get(key=KEY)
    assert claim.status is None and bool(claim.result) == bool(left)

    _, url = web("web-2")
    status, answer = post(url + path, secret, body)
    again = post(url + path, secret, body)
    assert status == 201, answer
    (message,) = PeerMessage.objects.all()
    assert answer["id"] == message.pk and answer["text"] == "once"
    assert again == (201, answer)


def test_it_a_claim_taken_over_rolls_its_late_work_back(owner, chat, other_chat):
    """A first request so slow it was taken for dead: its claim is gone, so its send,
    when it finally comes, is refused and rolled back instead of doubling the retry's."""
    reachable(chat, other_chat)

    def slow_send():
        IdempotentAnswer.objects.all().delete()  # a retry forgot the claim meanwhile
        actions.check_send_message(chat, to=other_chat.pk, text="late", wait_seconds=0)
        return 201, {}

    with pytest.raises(Refusal) as refused:
        run_once("secret", KEY, slow_send, request="send")
    assert refused.value.code == "idempotency_in_progress"
    assert not PeerMessage.objects.exists()


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/v1/messages", {"text": "once"}, 201),
        ("/api/v1/chats", {"name": "once"}, 409),  # its agent key cannot be shown again
    ],
)
def test_it_work_that_committed_is_answered_not_redone(
    owner_api, other_chat, settings, monkeypatch, path, body, status
):
    """In process: the answer is lost after the work committed (keeping it raised)."""
    reachable(other_chat)
    settings.IDEMPOTENCY_ABANDONED_SECONDS = 0.05
    if path == "/api/v1/messages":
        body = {**body, "to_chat": other_chat.pk}
    real_keep = idempotency.keep
    monkeypatch.setattr(idempotency, "keep", lambda *a: (_ for _ in ()).throw(OSError("gone")))
    headers = {"HTTP_IDEMPOTENCY_KEY": KEY}
    with pytest.raises(OSError, match="gone"):
        owner_api.generic("POST", path, json.dumps(body), "application/json", **headers)
    monkeypatch.setattr(idempotency, "keep", real_keep)
    counts = (PeerMessage.objects.count(), Chat.objects.count())

    retry = owner_api.generic("POST", path, json.dumps(body), "application/json", **headers)
    assert retry.status_code == status, retry.content
    assert (PeerMessage.objects.count(), Chat.objects.count()) == counts
    if status == 201:
        assert retry.json()["id"] == PeerMessage.objects.get().pk
    else:
        assert retry.json()["code"] == "idempotency_key_done"
