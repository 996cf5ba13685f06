"""Settings → Agents: an account's own model credentials, sealed at rest, never shown
back, replaced and removed by their owner only."""

import json

import pytest
from django.db import connection
from django.test import Client

from accounts import sealing
from accounts.models import ModelCredential

KEY = "sk-ant-api03-" + "x" * 40 + "Q7zK"
LOGIN = json.dumps({"claudeAiOauth": {"accessToken": "sk-ant-oat01-secret", "refreshToken": "r"}})


def add(client, value=KEY, provider="anthropic", kind="api_key", **more):
    data = {"provider": provider, "kind": kind, "value": value, **more}
    return client.post("/settings/agents/", data, headers={"HX-Request": "true"})


def stored_columns() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("select * from accounts_modelcredential")
        return [str(value) for row in cursor.fetchall() for value in row]


def test_it_keeps_the_key_sealed_in_the_database(owner_client, owner):
    response = add(owner_client, base_url="https://gateway.example/anthropic")

    assert response.status_code == 200
    columns = stored_columns()
    assert columns and not any(KEY in value or "x" * 40 in value for value in columns)
    credential = ModelCredential.objects.get(user=owner)
    assert sealing.unseal(credential.sealed) == KEY
    assert (credential.kind, credential.hint) == ("api_key", "Q7zK")
    assert credential.base_url == "https://gateway.example/anthropic"


def test_it_shows_only_the_last_four_characters_and_when_it_was_set(owner_client, owner):
    add(owner_client)
    page = owner_client.get("/settings/").text

    assert "…Q7zK" in page and "Anthropic (Claude Code)" in page
    assert KEY not in page and "x" * 10 not in page
    set_at = ModelCredential.objects.get(user=owner).set_at
    assert f"Set {set_at:%Y-%m-%d %H:%M}" in page


def test_it_takes_a_login_file_and_replaces_the_key_with_it(owner_client, owner):
    add(owner_client)
    response = add(owner_client, value=LOGIN, kind="login_file")

    assert response.status_code == 200 and "accessToken" not in response.text
    (credential,) = ModelCredential.objects.filter(user=owner)
    assert credential.kind == "login_file" and sealing.unseal(credential.sealed) == LOGIN


def test_it_removes_the_credential(owner_client, owner):
    add(owner_client)
    response = owner_client.post("/settings/agents/anthropic/remove/")

    assert response.status_code == 302
    assert not ModelCredential.objects.filter(user=owner).exists()
    assert "…Q7zK" not in owner_client.get("/settings/").text


def test_it_another_account_can_neither_see_nor_remove_it(owner_client, outsider_client, owner):
    add(owner_client)

    assert "Q7zK" not in outsider_client.get("/settings/").text
    assert outsider_client.post("/settings/agents/anthropic/remove/").status_code == 404
    assert ModelCredential.objects.filter(user=owner).count() == 1
    # The outsider's own key for the same provider is theirs: the owner's stays.
    add(outsider_client, value="sk-outsider-AAAA")
    assert sealing.unseal(ModelCredential.objects.get(user=owner).sealed) == KEY


def test_it_refuses_a_post_without_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)

    assert add(client).status_code == 403
    assert not ModelCredential.objects.exists()


@pytest.mark.parametrize(
    ("value", "kind", "said"),
    [
        ("sk-\x00abc", "api_key", "Null characters are not allowed."),
        ("--dangerously-skip", "api_key", "A credential may not start with `-`."),
        ("k" * 100_000, "api_key", "That is too long for a key or a login file"),
        ("sk one two", "api_key", "An API key is one word"),
        ("not json", "login_file", "A CLI&#x27;s login file is a JSON object"),
    ],
)
def test_it_refuses_a_value_that_cannot_be_a_credential(owner_client, value, kind, said):
    response = add(owner_client, value=value, kind=kind)

    assert response.status_code == 400
    assert said in response.text
    assert value not in response.text  # not even a refused value is shown back
    assert not ModelCredential.objects.exists()


def test_it_refuses_a_base_url_that_is_not_http(owner_client):
    response = add(owner_client, base_url="file:///etc/passwd")

    assert response.status_code == 400 and "A base URL is an http:// or https:// address" in (
        response.text
    )
    assert not ModelCredential.objects.exists()


def test_it_a_new_secret_key_leaves_a_sealed_credential_unreadable(owner_client, owner, settings):
    add(owner_client)
    sealed = ModelCredential.objects.get(user=owner).sealed
    settings.SECRET_KEY = "another-secret-key-" + "y" * 40

    with pytest.raises(sealing.Unreadable):
        sealing.unseal(sealed)
