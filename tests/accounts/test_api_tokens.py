import hashlib
import re

import pytest
from django.apps import apps
from django.test import RequestFactory

from accounts.actions import do_create_api_token, do_revoke_api_token
from accounts.models import ApiToken
from chats.api import authenticate

SECRET = re.compile(r"ctk_[A-Za-z0-9_-]{20,}")


def create_token(client, name: str = "laptop", **kwargs):
    response = client.post("/settings/tokens/", {"name": name}, **kwargs)
    assert response.status_code == 200
    return response, SECRET.search(response.text).group(0)


def database_holds(text: str) -> bool:
    """Whether any column of any row in any table contains `text`."""
    for model in apps.get_models():
        for row in model.objects.values_list():
            if any(text in str(value) for value in row):
                return True
    return False


def bearer(secret: str):
    return RequestFactory().get("/api/v1/chats", headers={"Authorization": f"Bearer {secret}"})


def test_it_shows_a_new_secret_once(owner_client, owner):
    response, secret = create_token(owner_client)
    assert "will not be shown again" in response.text
    assert "no-store" in response["Cache-Control"]
    token = ApiToken.objects.get(user=owner)
    assert token.name == "laptop"
    assert secret not in owner_client.get("/settings/").text
    assert f"{token.hint}…" in owner_client.get("/settings/").text


def test_it_stores_only_the_sha256_digest(owner_client, owner):
    _, secret = create_token(owner_client)
    token = ApiToken.objects.get(user=owner)
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert not database_holds(secret)
    assert not any(secret in morsel.value for morsel in owner_client.cookies.values())


def test_it_answers_htmx_with_the_tokens_card(owner_client):
    response, secret = create_token(owner_client, headers={"HX-Request": "true"})
    assert response.text.lstrip().startswith('<section class="card" id="tokens-card">')
    assert "<html" not in response.text


def test_it_refuses_an_overlong_token_name(owner_client, owner):
    response = owner_client.post("/settings/tokens/", {"name": "x" * 101})
    assert response.status_code == 200
    assert "errorlist" in response.text
    assert not ApiToken.objects.filter(user=owner).exists()


def test_it_lists_only_my_tokens(owner_client, owner, outsider):
    do_create_api_token(owner, name="mine")
    do_create_api_token(outsider, name="theirs")
    page = owner_client.get("/settings/").text
    assert "mine" in page
    assert "theirs" not in page


def test_it_revokes_my_token(owner_client, owner):
    token, secret = do_create_api_token(owner, name="old")
    response = owner_client.post(f"/settings/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert authenticate(bearer(secret)) is None


def test_it_revokes_through_htmx(owner_client, owner):
    token, _ = do_create_api_token(owner, name="old")
    response = owner_client.post(
        f"/settings/tokens/{token.pk}/revoke/", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert "Token revoked." in response.text
    assert not ApiToken.objects.filter(pk=token.pk).exists()


def test_it_answers_404_for_another_accounts_token(owner_client, outsider):
    token, secret = do_create_api_token(outsider, name="theirs")
    response = owner_client.post(f"/settings/tokens/{token.pk}/revoke/")
    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()
    assert authenticate(bearer(secret)).user == outsider


def test_it_answers_404_for_a_missing_token(owner_client):
    assert owner_client.post("/settings/tokens/999999/revoke/").status_code == 404


def test_it_refuses_token_pages_without_login(client, outsider):
    token, _ = do_create_api_token(outsider, name="theirs")
    response = client.post(f"/settings/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    assert ApiToken.objects.filter(pk=token.pk).exists()
    assert client.post("/settings/tokens/", {"name": "x"}).status_code == 302
    assert ApiToken.objects.count() == 1


def test_it_authenticates_a_valid_token_as_its_person(owner):
    _, secret = do_create_api_token(owner, name="cli")
    caller = authenticate(bearer(secret))
    assert caller.user == owner
    assert caller.chat is None
    assert ApiToken.objects.get(user=owner).last_used_at is not None


@pytest.mark.parametrize(
    "header", ["Bearer ctk_not-a-real-token", "Bearer ", "Basic dXNlcjpwYXNz", "ctk_loose"]
)
def test_it_rejects_garbage(db, header):
    request = RequestFactory().get("/api/v1/chats", headers={"Authorization": header})
    assert authenticate(request) is None


def test_it_rejects_a_revoked_token(owner):
    token, secret = do_create_api_token(owner, name="cli")
    do_revoke_api_token(owner, token_id=token.pk)
    assert authenticate(bearer(secret)) is None


def test_it_rejects_the_token_of_a_deactivated_person(owner):
    _, secret = do_create_api_token(owner, name="cli")
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert authenticate(bearer(secret)) is None
