import re

from accounts.models import User


def peers_checked(html: str) -> bool:
    tag = re.search(r'<input[^>]*name="peers_for_new_chats"[^>]*>', html).group(0)
    return " checked" in tag


def test_it_asks_to_log_in_for_settings(client, db):
    response = client.get("/settings/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_shows_the_peers_default_unchecked(owner_client):
    response = owner_client.get("/settings/")
    assert response.status_code == 200
    assert "Agent-to-agent messaging for new chats" in response.text
    assert not peers_checked(response.text)


def test_it_turns_peers_for_new_chats_on_and_off(owner_client, owner):
    response = owner_client.post("/settings/peers/", {"peers_for_new_chats": "on"})
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.peers_for_new_chats is True
    assert peers_checked(owner_client.get("/settings/").text)

    owner_client.post("/settings/peers/", {})
    owner.refresh_from_db()
    assert owner.peers_for_new_chats is False
    assert not peers_checked(owner_client.get("/settings/").text)


def test_it_answers_htmx_with_the_card_only(owner_client, owner):
    response = owner_client.post(
        "/settings/peers/", {"peers_for_new_chats": "on"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section class="card" id="peers-card">')
    assert "Saved." in response.text
    assert peers_checked(response.text)
    owner.refresh_from_db()
    assert owner.peers_for_new_chats is True


def test_it_leaves_other_accounts_alone(owner_client, outsider):
    owner_client.post("/settings/peers/", {"peers_for_new_chats": "on"})
    assert User.objects.get(pk=outsider.pk).peers_for_new_chats is False


def test_it_sets_the_inbound_defaults_of_new_chats(owner_client, owner):
    page = owner_client.get("/settings/").content.decode()
    assert 'name="inbound_for_new_chats"' in page and 'name="ask_when_more_permissive"' in page
    response = owner_client.post("/settings/inbound/", {"inbound_for_new_chats": "ask"})
    assert response.status_code == 302
    owner.refresh_from_db()
    assert (owner.inbound_for_new_chats, owner.ask_when_more_permissive) == ("ask", False)
    owner_client.post(
        "/settings/inbound/", {"inbound_for_new_chats": "", "ask_when_more_permissive": "on"}
    )
    owner.refresh_from_db()
    assert (owner.inbound_for_new_chats, owner.ask_when_more_permissive) == ("", True)


def test_it_refuses_an_unknown_inbound_default(owner_client, owner):
    for value in ("maybe", "-ask", "ask\x00"):
        response = owner_client.post("/settings/inbound/", {"inbound_for_new_chats": value})
        assert response.status_code in (200, 400)
    owner.refresh_from_db()
    assert owner.inbound_for_new_chats == ""
