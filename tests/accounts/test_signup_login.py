import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts.models import SignupAttempt, User

PASSWORD = "a-long-passphrase-9"


@pytest.fixture(autouse=True)
def signup_on(settings):
    settings.SIGNUP = True


def signup(client, username: str, password: str = PASSWORD, address: str = "10.0.0.1"):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": password, "password2": password},
        REMOTE_ADDR=address,
    )


def session_user(client) -> User | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id) if user_id else None


def test_it_signup_is_not_found_unless_signup_is_on(client, db, settings):
    settings.SIGNUP = False
    assert client.get("/accounts/signup/").status_code == 404
    assert signup(client, "bob").status_code == 404
    assert not User.objects.filter(username="bob").exists()
    assert "/accounts/signup/" not in client.get("/accounts/login/").text


def test_it_signs_up_then_asks_to_log_in(client, db):
    response = signup(client, "bob")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    user = User.objects.get(username="bob")
    assert user.check_password(PASSWORD)
    assert session_user(client) is None
    page = client.get("/accounts/login/").text
    assert "Now log in with the name and password you chose" in page
    assert (
        client.post("/accounts/login/", {"username": "bob", "password": PASSWORD}).status_code
        == 302
    )
    assert session_user(client) == user


def test_it_refuses_signup_with_mismatched_passwords(client, db):
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "password1": "a-long-passphrase-9", "password2": "another-one-9"},
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="bob").exists()
    assert session_user(client) is None


def test_it_a_taken_name_answers_exactly_like_a_free_one(owner):
    taken, free = Client(), Client()
    taken_answer, free_answer = signup(taken, "ALICE"), signup(free, "carol")
    assert taken_answer.status_code == free_answer.status_code == 302
    assert taken_answer["Location"] == free_answer["Location"]
    assert taken_answer.content == free_answer.content
    assert set(taken_answer.cookies) == set(free_answer.cookies)
    for client in (taken, free):
        assert (
            "Now log in with the name and password you chose" in client.get("/accounts/login/").text
        )
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1
    assert User.objects.get(username="alice").check_password("alice-password-1")
    # A form refused for another reason says nothing about the name either.
    assert "exists" not in signup(Client(), "alice", "short").text


def test_it_signups_are_limited_per_address_and_hour(db, settings):
    settings.SIGNUPS_PER_HOUR = 5
    for number in range(5):
        assert signup(Client(), f"user{number}").status_code == 302
    refused = signup(Client(), "user5")
    assert refused.status_code == 429
    assert "Too many sign-ups from your address" in refused.text
    assert not User.objects.filter(username="user5").exists()
    for _ in range(20):  # a flood past the limit writes nothing more
        assert signup(Client(), "flood").status_code == 429
    assert SignupAttempt.objects.filter(address="10.0.0.1").count() == 5
    assert signup(Client(), "user6", address="10.0.0.2").status_code == 302
    with time_machine.travel(timezone.now() + timezone.timedelta(minutes=61)):
        assert signup(Client(), "user7").status_code == 302


def test_it_links_login_and_signup_pages_to_each_other(client, db):
    assert 'href="/accounts/signup/"' in client.get("/accounts/login/").text
    assert 'href="/accounts/login/"' in client.get("/accounts/signup/").text


def test_it_logs_in_with_username_and_password(client, owner):
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": "alice-password-1"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/chats/"
    assert session_user(client) == owner


def test_it_refuses_a_wrong_password(client, owner):
    response = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert session_user(client) is None


def test_it_logs_out_on_post(owner_client):
    response = owner_client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    assert session_user(owner_client) is None


def test_it_does_not_log_out_on_get(owner_client, owner):
    assert owner_client.get("/accounts/logout/").status_code == 405
    assert session_user(owner_client) == owner
