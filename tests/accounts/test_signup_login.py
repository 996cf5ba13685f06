from django.contrib.auth import get_user_model

from accounts.models import User


def session_user(client) -> User | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id) if user_id else None


def test_it_signs_up_logs_in_and_goes_to_chats(client, db):
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "password1": "a-long-passphrase-9", "password2": "a-long-passphrase-9"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/chats/"
    user = User.objects.get(username="bob")
    assert user.check_password("a-long-passphrase-9")
    assert session_user(client) == user


def test_it_refuses_signup_with_mismatched_passwords(client, db):
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "password1": "a-long-passphrase-9", "password2": "another-one-9"},
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="bob").exists()
    assert session_user(client) is None


def test_it_refuses_a_taken_username(client, owner):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "alice",
            "password1": "a-long-passphrase-9",
            "password2": "a-long-passphrase-9",
        },
    )
    assert response.status_code == 200
    assert get_user_model().objects.filter(username="alice").count() == 1


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
