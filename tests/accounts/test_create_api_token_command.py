from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import RequestFactory

from accounts.models import User
from chats.api import authenticate


def run(*args) -> list[str]:
    out = StringIO()
    call_command("create_api_token", *args, stdout=out)
    return out.getvalue().splitlines()


def caller_for(secret: str):
    request = RequestFactory().get("/api/v1/chats", headers={"Authorization": f"Bearer {secret}"})
    return authenticate(request)


def test_it_prints_a_working_token_on_the_last_line(owner):
    lines = run("alice")
    assert caller_for(lines[-1]).user == owner
    assert owner.api_tokens.count() == 1


def test_it_makes_a_new_token_each_time(owner):
    assert run("alice")[-1] != run("alice")[-1]
    assert owner.api_tokens.count() == 2


def test_it_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user named 'ghost'.*--create-user"):
        run("ghost")
    assert not User.objects.filter(username="ghost").exists()


def test_it_creates_a_missing_user(db):
    lines = run("newbie", "--create-user")
    user = User.objects.get(username="newbie")
    assert caller_for(lines[-1]).user == user
    assert not user.has_usable_password()


def test_it_creates_a_user_with_the_password_as_given(client, db):
    lines = run("ops", "--create-user", "--password", "x")
    user = User.objects.get(username="ops")
    assert user.check_password("x")
    assert client.login(username="ops", password="x")
    assert caller_for(lines[-1]).user == user


def test_it_sets_the_password_of_an_existing_user(owner):
    lines = run("alice", "--password", "123")
    owner.refresh_from_db()
    assert owner.check_password("123")
    assert caller_for(lines[-1]).user == owner


def test_it_leaves_an_existing_user_alone_with_create_user(owner):
    lines = run("alice", "--create-user")
    owner.refresh_from_db()
    assert owner.check_password("alice-password-1")
    assert User.objects.filter(username="alice").count() == 1
    assert caller_for(lines[-1]).user == owner
