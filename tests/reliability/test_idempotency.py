"""Idempotency-Key: a retry gets the first answer again and creates nothing."""

import json
import threading
from datetime import timedelta

import pytest
import time_machine
from django.db import connections
from django.utils import timezone

from accounts.actions import do_create_api_token
from chats.models import Chat, Turn
from kernel.idempotency import run_once
from kernel.models import IdempotentAnswer
from peers.models import PeerMessage
from tests.conftest import ApiClient
from tests.peers.conftest import reachable


def post(api: ApiClient, path: str, body: dict, key: str | None = "retry-1"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return api.generic("POST", path, json.dumps(body), "application/json", **headers)


@pytest.mark.django_db
class TestRetries:
    def test_it_sends_a_message_once_for_two_tries_with_one_key(self, owner_api, chat):
        reachable(chat)
        body = {"to_chat": chat.pk, "text": "hello"}
        first = post(owner_api, "/api/v1/messages", body)
        again = post(owner_api, "/api/v1/messages", body)
        assert first.status_code == again.status_code == 201
        assert again.json() == first.json()
        assert again["Idempotent-Replayed"] == "true"
        assert PeerMessage.objects.count() == 1

    def test_it_sends_again_without_a_key(self, owner_api, chat):
        reachable(chat)
        for _ in range(2):
            post(owner_api, "/api/v1/messages", {"to_chat": chat.pk, "text": "hi"}, key=None)
        assert PeerMessage.objects.count() == 2

    def test_it_creates_one_chat_and_one_prompt(self, owner_api):
        for _ in range(2):
            created = post(owner_api, "/api/v1/chats", {"name": "once"})
        assert created.status_code == 201
        assert Chat.objects.filter(name="once").count() == 1
        path = f"/api/v1/chats/{created.json()['id']}/prompts"
        answers = [post(owner_api, path, {"text": "go"}, key="p") for _ in range(2)]
        assert [a.status_code for a in answers] == [202, 202]
        assert Turn.objects.count() == 1

    def test_it_connects_once(self, owner_api, chat, other_chat):
        reachable(chat, other_chat)
        body = {"chats": [chat.pk, other_chat.pk], "brief": "agree on the port"}
        for _ in range(2):
            assert post(owner_api, "/api/v1/connections", body).status_code == 201
        assert PeerMessage.objects.count() == 2

    def test_it_sends_an_agent_message_once(self, chat, other_chat):
        reachable(chat, other_chat)
        agent = ApiClient(chat.agent_key)
        body = {"to": other_chat.pk, "text": "which port?", "wait_seconds": 0}
        for _ in range(2):
            assert post(agent, "/api/v1/agent/messages", body).status_code == 201
        assert PeerMessage.objects.count() == 1

    def test_it_keeps_keys_apart_per_credential(self, owner, owner_api, chat):
        reachable(chat)
        _, secret = do_create_api_token(owner, name="second")
        body = {"to_chat": chat.pk, "text": "hello"}
        post(owner_api, "/api/v1/messages", body)
        post(ApiClient(secret), "/api/v1/messages", body)
        assert PeerMessage.objects.count() == 2

    def test_it_replays_a_refusal_too(self, owner_api):
        body = {"to_chat": "chat_0000000000000000", "text": "hello"}
        first = post(owner_api, "/api/v1/messages", body)
        again = post(owner_api, "/api/v1/messages", body)
        assert first.status_code == again.status_code == 404
        assert again.json() == first.json()

    def test_it_refuses_a_key_reused_for_another_request(self, owner_api, chat):
        reachable(chat)
        post(owner_api, "/api/v1/messages", {"to_chat": chat.pk, "text": "one"})
        again = post(owner_api, "/api/v1/messages", {"to_chat": chat.pk, "text": "two"})
        assert again.status_code == 409
        assert again.json()["code"] == "idempotency_key_reused"
        assert PeerMessage.objects.count() == 1

    @pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "a\tb"])
    def test_it_refuses_a_malformed_key(self, owner_api, chat, key):
        response = post(owner_api, "/api/v1/chats", {"name": "k"}, key=key)
        assert response.status_code == 400
        assert response.json()["code"] == "invalid_input"
        assert not Chat.objects.filter(name="k").exists()

    def test_it_runs_again_after_24_hours(self, owner_api, chat):
        reachable(chat)
        body = {"to_chat": chat.pk, "text": "hello"}
        post(owner_api, "/api/v1/messages", body)
        with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
            reachable(chat)
            assert post(owner_api, "/api/v1/messages", body).status_code == 201
        assert PeerMessage.objects.count() == 2


@pytest.mark.django_db
def test_it_runs_a_function_once_per_key():
    calls = []

    def work():
        calls.append(1)
        return 201, {"n": len(calls)}

    assert run_once("secret", "k", work) == (201, {"n": 1})
    assert run_once("secret", "k", work) == (201, {"n": 1})
    assert run_once("other", "k", work) == (201, {"n": 2})


@pytest.mark.django_db
def test_it_releases_the_key_when_the_work_raises():
    def broken():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        run_once("secret", "k", broken)
    assert not IdempotentAnswer.objects.exists()
    assert run_once("secret", "k", lambda: (201, {})) == (201, {})


@pytest.mark.django_db(transaction=True)
def test_it_sends_one_message_for_concurrent_retries(owner, chat):
    reachable(chat)
    _, secret = do_create_api_token(owner, name="racers")
    body = {"to_chat": chat.pk, "text": "only once"}
    answers, start = [], threading.Barrier(6)

    def racer():
        start.wait()
        try:
            answers.append(post(ApiClient(secret), "/api/v1/messages", body, key="race"))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=racer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert PeerMessage.objects.count() == 1
    assert [a.status_code for a in answers] == [201] * 6
    assert len({a.content for a in answers}) == 1
