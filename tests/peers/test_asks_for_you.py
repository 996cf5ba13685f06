"""Every page lists the newest messages addressed to the person (not to a chat), for the
page's notifications: only the account's own, only of the last day, escaped."""

import re
from datetime import timedelta

from django.utils import timezone

from peers.models import PeerMessage


def to_person(chat, text: str, *, ago=timedelta(0), to_chat=None) -> PeerMessage:
    created = timezone.now() - ago
    return PeerMessage.objects.create(
        user=chat.user,
        from_chat=chat,
        to_chat=to_chat,
        sent_by="agent",
        text=text,
        exchange="x",
        chain="c",
        state="delivered",
        created_at=created,
        state_changed_at=created,
    )


LIST = re.compile(
    r'<span id="asks-for-you"[^>]*>((?:<span data-ask[^>]*>.*?</span>)*)</span>', re.S
)


def asks(client) -> str:
    """The list's items on the chat list page."""
    return LIST.search(client.get("/chats/").content.decode()).group(1)


def test_it_lists_a_chat_writing_to_the_person_with_its_name_and_words(owner_client, chat):
    asked = to_person(chat, "Which <b>port</b>?")
    listed = asks(owner_client)
    assert f'data-ask="{asked.pk}" data-from="checkout"' in listed
    assert "Which &lt;b&gt;port&lt;/b&gt;?" in listed


def test_it_leaves_out_messages_to_chats_and_old_ones(owner_client, chat, other_chat):
    to_person(chat, "to a chat", to_chat=other_chat)
    to_person(chat, "two days old", ago=timedelta(days=2))
    listed = asks(owner_client)
    assert "data-ask" not in listed


def test_it_another_accounts_messages_never_show(owner_client, outsider_client, chat):
    to_person(chat, "for the owner only")
    assert "for the owner only" in asks(owner_client)
    assert "for the owner only" not in asks(outsider_client)
    assert "data-ask" not in asks(outsider_client)


def test_it_a_live_refresh_carries_the_list_out_of_band(owner_client, chat):
    to_person(chat, "fresh")
    html = owner_client.get("/chats/", headers={"HX-Request": "true"}).content.decode()
    assert '<span id="asks-for-you" hidden hx-swap-oob="true">' in html
    assert "fresh" in html
