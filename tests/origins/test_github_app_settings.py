"""Settings → Origins for a GitHub App: its id, installation and private key are kept
(the key write-only, like the tokens), and values that are no id or no key are refused."""

import pytest

from origins.models import Origin

pytestmark = pytest.mark.django_db
KEY = "-----BEGIN RSA PRIVATE KEY-----\r\nMIIEabc\r\n-----END RSA PRIVATE KEY-----"
APP = {
    "kind": "github",
    "name": "shop app",
    "enabled": "on",
    "agent": "demo",
    "handle": "shop-helper",
    "app_id": "12345",
    "installation_id": "678",
    "private_key": KEY,
}


def test_it_keeps_a_github_apps_id_installation_and_key(owner_client, owner):
    response = owner_client.post("/settings/origins/new/", APP)

    assert response.status_code == 302, response.content
    origin = Origin.objects.get(user=owner)
    assert origin.settings["app_id"] == "12345" and origin.settings["installation_id"] == "678"
    assert origin.settings["private_key"] == KEY.replace("\r\n", "\n")


def test_it_an_edit_without_the_key_keeps_it_and_never_shows_it(owner_client, owner):
    owner_client.post("/settings/origins/new/", APP)
    origin = Origin.objects.get(user=owner)
    page = owner_client.get(f"/settings/origins/{origin.public_id}/")
    assert "MIIEabc" not in page.content.decode() and "12345" in page.content.decode()

    edited = owner_client.post(
        f"/settings/origins/{origin.public_id}/", {**APP, "private_key": "", "app_id": "999"}
    )

    assert edited.status_code == 302, edited.content
    origin.refresh_from_db()
    assert origin.settings["app_id"] == "999" and "MIIEabc" in origin.settings["private_key"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("app_id", "-1"),
        ("app_id", "12 OR 1=1"),
        ("installation_id", "1e9"),
        ("private_key", "not a key"),
        ("private_key", "--config=/etc/passwd"),
    ],
)
def test_it_refuses_what_is_no_app_id_or_key(owner_client, owner, field, value):
    owner_client.post("/settings/origins/new/", {**APP, field: value})
    response = owner_client.get("/settings/origins/")
    assert not Origin.objects.filter(user=owner).exists()
    # Beside its field, in plain words (not the library's "String should match pattern").
    page = response.content.decode()
    box = page[page.index(f'class="origin-field field-{field}"') :]
    error = box[: box.index("</div>")]
    assert "field-error" in page and "should match" not in page
    assert ("Digits only" in box or "BEGIN" in box) and error


def test_it_another_accounts_app_origin_reads_as_missing(outsider_client, owner_client, owner):
    owner_client.post("/settings/origins/new/", APP)
    origin = Origin.objects.get(user=owner)
    assert outsider_client.get(f"/settings/origins/{origin.public_id}/").status_code == 404
