"""Login throttling (django-axes): five failures lock a username, or an address, out for a
while; the page and a JSON answer say when to try again; a success resets the count."""

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

LOGIN = "/accounts/login/"


def attempt(username: str, password: str, address: str = "10.0.0.1", **headers):
    return Client().post(
        LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def fail(times: int, username: str = "alice", address: str = "10.0.0.1") -> None:
    for _ in range(times):
        assert attempt(username, "wrong", address).status_code in (200, 429)


def test_it_five_failures_lock_the_name_out_even_with_the_right_password(owner):
    fail(5)
    locked = attempt("alice", "alice-password-1")
    assert locked.status_code == 429
    assert "Too many failed logins. Try again after" in locked.text
    assert "in 15 minutes" in locked.text
    assert locked["Retry-After"] == "900"
    assert "_auth_user_id" not in locked.cookies.get("sessionid", "")


def test_it_the_name_is_locked_from_every_address(owner):
    fail(5, address="10.0.0.1")
    assert attempt("alice", "alice-password-1", address="10.0.0.9").status_code == 429


def test_it_one_address_is_locked_out_for_every_name(owner, outsider):
    for name in ("a", "b", "c", "d", "e"):
        fail(1, username=name, address="10.0.0.7")
    assert attempt("alice", "alice-password-1", address="10.0.0.7").status_code == 429
    assert attempt("alice", "alice-password-1", address="10.0.0.8").status_code == 302


def test_it_json_clients_get_too_many_attempts_with_a_retry_time(owner):
    fail(5)
    answer = attempt("alice", "wrong", HTTP_ACCEPT="application/json")
    assert answer.status_code == 429
    body = answer.json()
    assert body["code"] == "too_many_attempts"
    assert body["retry_after"] == 900
    assert "Try again after" in body["message"]
    assert body["retry_at"] > timezone.now().isoformat()


def test_it_the_lockout_ends_after_the_cool_off(owner):
    fail(5)
    with time_machine.travel(timezone.now() + timezone.timedelta(minutes=16)):
        assert attempt("alice", "alice-password-1").status_code == 302


def test_it_the_lockout_time_follows_the_setting(owner, settings):
    settings.AXES_COOLOFF_TIME = timezone.timedelta(minutes=2)
    settings.AXES_FAILURE_LIMIT = 2
    fail(2)
    locked = attempt("alice", "alice-password-1")
    assert locked.status_code == 429
    assert locked["Retry-After"] == "120"


def test_it_a_success_resets_the_count(owner):
    fail(4)
    assert attempt("alice", "alice-password-1").status_code == 302
    fail(4)
    assert attempt("alice", "alice-password-1").status_code == 302


def test_it_operators_commands_log_in_without_a_request(owner):
    from django.contrib.auth import authenticate

    fail(5)
    assert authenticate(username="alice", password="alice-password-1") == owner


@pytest.mark.django_db(transaction=True)
async def test_it_locks_out_under_asgi_too(owner, async_client):
    for _ in range(5):
        await async_client.post(LOGIN, {"username": "alice", "password": "wrong"})
    locked = await async_client.post(LOGIN, {"username": "alice", "password": "alice-password-1"})
    assert locked.status_code == 429
    assert "Try again after" in locked.text
