"""Two web processes and two workers on one database and one Redis: a prompt sent
through one web process runs once, on one worker, and reaches a socket on the other,
and no socket of another account on either."""

import pytest
from django.conf import settings
from django.test import Client

from accounts.actions import do_create_api_token
from chats.models import Turn
from tests.reliability.procs import WebSocket, http, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def cookie_of(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def test_it_runs_a_prompt_once_and_pushes_it_to_the_other_web_process(
    owner, outsider, chat, processes, session_cookie
):
    _, token = do_create_api_token(owner, name="cluster")
    first, second = processes("web", "web-1"), processes("web", "web-2")
    processes("worker", "worker-1")
    processes("worker", "worker-2")
    socket = WebSocket(second.port, f"/ws/chats/{chat.pk}/", cookie=session_cookie)
    assert socket.status == 101
    outsiders = [
        WebSocket(web.port, "/ws/chats/", cookie=cookie_of(outsider)) for web in (first, second)
    ]
    assert [s.status for s in outsiders] == [101, 101]

    status, _ = http(
        "POST",
        f"http://127.0.0.1:{first.port}/api/v1/chats/{chat.pk}/prompts",
        body={"text": "hello from web-1"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert status == 202

    def answer_pushed() -> bool:
        hint = socket.receive(timeout=0.5)
        return bool(hint) and hint.get("kind") == "entry" and answered()

    def answered() -> bool:
        return chat.entries.filter(kind="answer", text="hello from web-1").exists()

    wait_for(answer_pushed, "the answer's hint on web-2's socket", timeout=20, every=0)
    socket.close()
    assert [s.receive(timeout=0.5) for s in outsiders] == [None, None]
    for s in outsiders:
        s.close()
    turns = list(Turn.objects.filter(chat=chat))
    assert [turn.state for turn in turns] == [Turn.State.DONE]
    assert turns[0].worker in {"worker-1", "worker-2"}
    assert chat.entries.filter(kind="answer").count() == 1
