"""Redis is a hint, the database the truth: with a private redis-server stopped for
~10 s mid-run, every send, prompt and page keeps answering, nothing is stored twice,
no chat is left running, and sockets and pushes come back with Redis."""

import itertools
import time

import pytest

from accounts.actions import do_create_api_token
from chats.models import Chat
from peers import waiting
from peers.actions import do_set_limits
from peers.models import PeerMessage
from tests.peers.conftest import reachable
from tests.reliability.procs import WebSocket, http, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

OUTAGE_SECONDS = 10


class Traffic:
    """What a person's scripts and browser do, through one web process."""

    def __init__(self, port: int, token: str, cookie: str, chats: list[Chat]) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.port, self.token, self.cookie, self.chats = port, token, cookie, chats
        self.keys = itertools.count()
        self.acknowledged: list[str] = []
        self.statuses: list[tuple[str, int]] = []

    def call(self, what: str, method: str, path: str, body=None, **headers) -> tuple[int, object]:
        auth = {"Authorization": f"Bearer {self.token}", **headers}
        status, answer = http(method, self.base + path, body=body, headers=auth)
        self.statuses.append((what, status))
        return status, answer

    def round(self) -> None:
        key = f"send-{next(self.keys)}"
        body = {"to_chat": self.chats[1].pk, "text": f"note {key}"}
        status, answer = self.call(
            "send", "POST", "/api/v1/messages", body, **{"Idempotency-Key": key}
        )
        if status == 201:
            self.acknowledged.append(answer["id"])
        self.call("prompt", "POST", f"/api/v1/chats/{self.chats[0].pk}/prompts", {"text": "hi"})
        self.call("list", "GET", "/api/v1/chats")
        page_status, _ = http("GET", self.base + "/chats/", headers={"Cookie": self.cookie})
        self.statuses.append(("page", page_status))
        self.statuses.append(("socket", self.handshake()))

    def handshake(self) -> int:
        try:
            socket = WebSocket(self.port, f"/ws/chats/{self.chats[0].pk}/", cookie=self.cookie)
        except ConnectionError:
            return 403  # refused: the server closed the handshake
        socket.close()
        return socket.status

    def server_errors(self) -> list[tuple[str, int]]:
        return [(what, status) for what, status in self.statuses if status >= 500]


@pytest.fixture
def traffic(owner, chat, other_chat, processes, session_cookie):
    reachable(chat, other_chat)
    do_set_limits({"wakes_per_hour": 1000, "pair_per_window": 1000})
    _, token = do_create_api_token(owner, name="outage")
    web = processes("web", "web")
    processes("worker", "worker")
    return Traffic(web.port, token, session_cookie, [chat, other_chat])


def test_it_keeps_answering_while_redis_is_down(traffic, redis_server, chat):
    traffic.round()
    redis_server.stop()
    down_until = time.monotonic() + OUTAGE_SECONDS
    while time.monotonic() < down_until:
        traffic.round()
    assert ("socket", 403) in traffic.statuses  # refused cleanly while Redis was away
    redis_server.start()
    for _ in range(3):
        traffic.round()

    assert traffic.server_errors() == []
    sends = [status for what, status in traffic.statuses if what == "send"]
    assert set(sends) == {201}
    stored = PeerMessage.objects.filter(pk__in=traffic.acknowledged)
    assert stored.count() == len(traffic.acknowledged) == len(sends)
    assert PeerMessage.objects.filter(from_chat=None).count() == len(sends)
    wait_for(
        lambda: (
            not Chat.objects.filter(status="running").exists()
            and not chat.turns.filter(state__in=["requested", "running"]).exists()
        ),
        "every prompt to have run",
        timeout=60,
    )


def test_it_pushes_again_once_redis_is_back(traffic, redis_server, chat):
    before = open_socket(traffic)
    redis_server.stop()
    traffic.round()
    redis_server.start()
    socket = wait_for(
        lambda: (s := open_socket(traffic)) and s.status == 101 and s, "a socket", timeout=15
    )
    traffic.call("prompt", "POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "back"})
    wait_for(lambda: socket.receive(timeout=0.5), "a hint on the socket", timeout=15, every=0)
    socket.close()
    # A socket from before the outage is never left open and deaf: it hears, or the
    # server closes it and the page reconnects (static/crosstalk/live.js).
    wait_for(lambda: closed_or_hears(before), "the old socket to hear or close", timeout=10)
    assert traffic.server_errors() == []


def closed_or_hears(socket: WebSocket) -> bool:
    try:
        return socket.receive(timeout=0.5) is not None
    except ConnectionError:
        return True


def open_socket(traffic: Traffic) -> WebSocket | None:
    try:
        return WebSocket(traffic.port, f"/ws/chats/{traffic.chats[0].pk}/", cookie=traffic.cookie)
    except ConnectionError:
        return None


@pytest.mark.skipif(
    not hasattr(waiting, "wait_for_inbox"),
    reason="waiting calls fall back to the database in the lead's rewrite of peers/waiting.py",
)
def test_it_answers_waiting_calls_while_redis_is_down(traffic, redis_server, chat, other_chat):
    agent = {"Authorization": f"Bearer {chat.agent_key}"}
    redis_server.stop()
    inbox = http("GET", f"{traffic.base}/api/v1/agent/inbox?wait=2", headers=agent)
    body = {"to": other_chat.pk, "text": "which port?", "wait_seconds": 2}
    sent = http("POST", f"{traffic.base}/api/v1/agent/messages", body=body, headers=agent)
    redis_server.start()
    assert inbox[0] == 200, inbox
    assert sent[0] == 201, sent
    assert PeerMessage.objects.filter(pk=sent[1]["id"]).count() == 1
