"""The pages' side of inbound `ask`: the ⋯ menu's and the Peers tab's toggle, and a
card's Approve / Deny (in the conversation and in the Peers tab)."""

from chats.inputs import ChatUpdate
from peers import actions
from tests.peers.test_pages_cards import HTMX, conversation


def ask(chat):
    return actions.check_update_chat(chat.user, chat, spec=ChatUpdate(inbound="ask"))


def test_the_menu_and_the_tab_show_the_inbound_toggle(owner_client, recipient):
    page = owner_client.get(f"/chats/{recipient.pk}/").content.decode()
    assert page.count(f'action="/chats/{recipient.pk}/inbound/"') == 2  # menu and tab
    assert "Ask me before other chats" in page


def test_the_toggle_switches_inbound_both_ways(owner_client, recipient):
    response = owner_client.post(f"/chats/{recipient.pk}/inbound/", {"inbound": "ask"}, **HTMX)
    assert response.status_code == 204 and f"live-chat-{recipient.pk}" in response["HX-Trigger"]
    recipient.refresh_from_db()
    assert recipient.inbound == "ask"
    owner_client.post(f"/chats/{recipient.pk}/inbound/")  # absent: toggles
    recipient.refresh_from_db()
    assert recipient.inbound == "accept"


def test_the_toggle_refuses_a_bad_value(owner_client, recipient):
    for value in ("maybe", "-ask", "ask\x00"):
        response = owner_client.post(f"/chats/{recipient.pk}/inbound/", {"inbound": value})
        assert response.status_code == 400
    recipient.refresh_from_db()
    assert recipient.inbound == "accept"


def test_another_accounts_chat_is_404_for_the_toggle(outsider_client, recipient):
    response = outsider_client.post(f"/chats/{recipient.pk}/inbound/", {"inbound": "ask"})
    missing = outsider_client.post("/chats/chat_0000000000000000/inbound/", {"inbound": "ask"})
    assert response.status_code == missing.status_code == 404
    recipient.refresh_from_db()
    assert recipient.inbound == "accept"


def test_the_card_approves_a_waiting_message(owner_client, sender, recipient):
    ask(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="may I?")
    shown = conversation(owner_client, recipient)
    assert "Queued — awaiting your approval" in shown
    assert f"/chats/{recipient.pk}/messages/{message.pk}/approve/" in shown
    assert f"/chats/{recipient.pk}/messages/{message.pk}/deny/" in shown
    # One card per message: the sender's conversation shows the same card, with its buttons.
    assert f"/chats/{sender.pk}/messages/{message.pk}/approve/" in conversation(
        owner_client, sender
    )

    url = f"/chats/{recipient.pk}/messages/{message.pk}/approve/"
    response = owner_client.post(url, **HTMX)

    assert response.status_code == 200 and "live-message" in response["HX-Trigger"]
    message.refresh_from_db()
    assert message.detail == "waking"


def test_the_card_denies_without_htmx_and_returns_to_the_chat(owner_client, sender, recipient):
    ask(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="may I?")
    response = owner_client.post(f"/chats/{sender.pk}/messages/{message.pk}/deny/")
    assert response.status_code == 302 and response["Location"] == f"/chats/{sender.pk}/"
    message.refresh_from_db()
    assert (message.state, message.detail) == ("cancelled", "denied")
    again = owner_client.post(f"/chats/{sender.pk}/messages/{message.pk}/approve/", **HTMX)
    assert again.status_code == 200 and "not waiting for approval" in again.content.decode()


def test_an_outsider_cannot_decide(outsider_client, sender, recipient):
    ask(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="may I?")
    for verb in ("approve", "deny"):
        response = outsider_client.post(f"/chats/{recipient.pk}/messages/{message.pk}/{verb}/")
        assert response.status_code == 404
    message.refresh_from_db()
    assert message.reason == "awaiting_approval"


def test_the_page_title_counts_messages_awaiting_approval(owner_client, sender, recipient):
    ask(recipient)
    actions.check_send_message(sender, to=recipient.pk, text="may I?")
    page = owner_client.get(f"/chats/{sender.pk}/").content.decode()
    assert "<title>(1) " in page
