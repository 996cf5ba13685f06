"""Another account's chat or message answers every page, partial and POST of the
peers pages exactly like a missing one: 404, and nothing changes."""

import pytest

from peers import actions
from peers.models import PeerMessage
from tests.peers.conftest import reachable

HTMX = {"HTTP_HX_REQUEST": "true"}
MISSING = "chat_doesnotexist"


@pytest.fixture
def their_message(outsider, outsider_chat):
    reachable(outsider_chat)
    return actions.check_send_as_person(outsider, from_chat=None, to=outsider_chat.pk, text="x")


def chat_paths(chat_id: str, message_id: str) -> list[tuple[str, str, dict]]:
    return [
        ("get", f"/chats/{chat_id}/", {}),
        ("get", f"/chats/{chat_id}/conversation/", {}),
        ("get", f"/chats/{chat_id}/header/", {}),
        ("get", f"/chats/{chat_id}/peers/live/", {}),
        ("post", f"/chats/{chat_id}/stop/", {}),
        ("get", f"/chats/{chat_id}/peers/", {}),
        ("post", f"/chats/{chat_id}/peers/", {}),
        ("post", f"/chats/{chat_id}/peers/connect/", {"other": "x", "brief": "b"}),
        ("post", f"/chats/{chat_id}/peers/send/", {"to": "x", "text": "b"}),
        ("get", f"/chats/{chat_id}/messages/{message_id}/", {}),
        ("post", f"/chats/{chat_id}/messages/{message_id}/cancel/", {}),
        ("get", f"/activity/?chat={chat_id}", {}),
        ("get", f"/activity/rows/?chat={chat_id}", {}),
    ]


def test_it_answers_404_for_another_accounts_chat_like_a_missing_one(
    outsider_chat, their_message, owner_client
):
    state = their_message.state
    for (method, theirs, data), (_, missing, _) in zip(
        chat_paths(outsider_chat.pk, their_message.pk),
        chat_paths(MISSING, "msg_doesnotexist"),
        strict=True,
    ):
        for extra in ({}, HTMX):
            got = getattr(owner_client, method)(theirs, data, **extra)
            expected = getattr(owner_client, method)(missing, data, **extra)
            assert got.status_code == expected.status_code == 404, theirs
            assert got.content == expected.content

    outsider_chat.refresh_from_db()
    their_message.refresh_from_db()
    assert outsider_chat.peers is True and their_message.state == state


def test_it_answers_404_for_their_message_on_my_chat(chat, their_message, owner_client):
    """The Send form's status line and its Cancel, aimed at another account's message
    through one of my own chats: exactly a missing message, and it stays as it was."""
    state = their_message.state
    for method, tail in (("get", ""), ("post", "cancel/")):
        call = getattr(owner_client, method)
        for extra in ({}, HTMX):
            theirs = call(f"/chats/{chat.pk}/messages/{their_message.pk}/{tail}", **extra)
            missing = call(f"/chats/{chat.pk}/messages/msg_doesnotexist/{tail}", **extra)
            assert theirs.status_code == missing.status_code == 404
            assert theirs.content == missing.content
    their_message.refresh_from_db()
    assert their_message.state == state != PeerMessage.State.CANCELLED


def test_it_answers_404_for_a_message_of_another_of_my_chats(owner, chat, other_chat, owner_client):
    reachable(other_chat)
    held = actions.check_send_as_person(owner, from_chat=None, to=other_chat.pk, text="x")
    response = owner_client.post(f"/chats/{chat.pk}/messages/{held.pk}/cancel/", **HTMX)
    assert response.status_code == 404
    held.refresh_from_db()
    assert held.state != "cancelled"


def test_it_answers_404_when_connecting_or_sending_to_their_chat(chat, outsider_chat, owner_client):
    connect = owner_client.post(
        f"/chats/{chat.pk}/peers/connect/", {"other": outsider_chat.pk, "brief": "hi"}, **HTMX
    )
    send = owner_client.post(
        f"/chats/{chat.pk}/peers/send/", {"to": outsider_chat.pk, "text": "hi"}, **HTMX
    )
    missing = owner_client.post(
        f"/chats/{chat.pk}/peers/send/", {"to": MISSING, "text": "hi"}, **HTMX
    )
    assert connect.status_code == send.status_code == missing.status_code == 404
    assert not PeerMessage.objects.filter(user=chat.user).exists()
    outsider_chat.refresh_from_db()
    assert outsider_chat.peers is True


def test_it_shows_nothing_of_theirs_on_my_account_wide_pages(
    outsider_chat, their_message, owner_client
):
    for path in ("/chats/", "/chats/rows/", "/activity/", "/activity/rows/", "/settings/"):
        for extra in ({}, HTMX):
            html = owner_client.get(path, **extra).content.decode()
            assert outsider_chat.pk not in html and their_message.pk not in html, path
            assert "secret" not in html
