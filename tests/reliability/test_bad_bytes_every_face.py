"""Bad bytes through every face: a NUL or lone surrogate in MCP arguments is refused
`invalid_input` as on REST (the shared input models check it), and every form answers
it with a field error, never a 500; nothing is stored either way. Runs on the backend
DATABASE_URL names (SQLite by default, PostgreSQL in the second run)."""

import pytest
from django.test import Client

from accounts.actions import do_create_api_token
from accounts.models import ApiToken, User
from chats.models import Chat, Entry, Turn
from peers.models import Limits, PeerMessage
from tests.peers.conftest import reachable
from tests.peers.test_mcp_tools import mcp, refusal_of

BAD = ["a\x00b", "a\ud800b"]
# Django's words for a NUL in a text field, and for a choice no option has.
SAID = ["Null characters are not allowed", "Select a valid choice"]


def stored() -> tuple[int, ...]:
    models = (Chat, Entry, Turn, PeerMessage, ApiToken, Limits)
    return tuple(model.objects.count() for model in models)


@pytest.fixture
def person_secret(owner):
    return do_create_api_token(owner, name="tests")[1]


def person_calls(chat, other_chat, bad):
    return [
        ("send_peer_message", {"toChat": other_chat.pk, "text": bad}),
        ("send_peer_message", {"fromChat": chat.pk, "toChat": other_chat.pk, "text": bad}),
        ("send_peer_message", {"toChat": bad, "text": "hello"}),
        ("connect_chats", {"chats": [chat.pk, other_chat.pk], "brief": bad}),
        ("start_chat", {"name": bad}),
        ("start_chat", {"name": "fine", "folder": bad}),
        ("update_chat", {"chat": chat.pk, "name": bad}),
        ("read_peers", {"chat": bad}),
        ("cancel_peer_message", {"message": bad}),
        ("list_peer_chats", {"chat": bad}),
    ]


@pytest.mark.parametrize("bad", BAD, ids=["nul", "surrogate"])
def test_it_mcp_person_tools_refuse_bad_bytes_and_store_nothing(
    person_secret, chat, other_chat, bad
):
    reachable(chat, other_chat)
    before = stored()
    for name, arguments in person_calls(chat, other_chat, bad):
        refusal = refusal_of(mcp(person_secret, name, arguments))
        assert refusal["code"] == "invalid_input", (name, refusal)
        assert "NUL" in refusal["message"], (name, refusal)
    assert stored() == before


@pytest.mark.parametrize("bad", BAD, ids=["nul", "surrogate"])
def test_it_mcp_agent_tools_refuse_bad_bytes_and_store_nothing(chat, other_chat, bad):
    reachable(chat, other_chat)
    before = stored()
    for name, arguments in [
        ("MessageChat", {"to": other_chat.pk, "text": bad, "waitSeconds": 0}),
        ("MessageChat", {"to": other_chat.pk, "text": "hi", "replyTo": bad}),
        ("ReadChat", {"chat": bad}),
    ]:
        refusal = refusal_of(mcp(chat.agent_key, name, arguments))
        assert refusal["code"] == "invalid_input", (name, refusal)
    assert stored() == before


def test_it_an_idempotency_keyed_mcp_send_with_a_nul_is_refused_too(chat, other_chat):
    reachable(chat, other_chat)
    arguments = {"to": other_chat.pk, "text": "a\x00", "idempotencyKey": "k-1", "waitSeconds": 0}
    assert refusal_of(mcp(chat.agent_key, "MessageChat", arguments))["code"] == "invalid_input"
    assert not PeerMessage.objects.exists()


@pytest.fixture
def staff_client(db):
    client = Client()
    client.force_login(User.objects.create_user("root", password="root-pw-123", is_staff=True))
    return client


def form_posts(chat, other_chat):
    page = f"/chats/{chat.pk}"
    return [
        ("/chats/", {"name": "a\x00b", "agent": "demo"}),
        ("/chats/", {"name": "fine", "agent": "demo", "folder": "/srv/\x00"}),
        ("/chats/", {"name": "fine", "agent": "de\x00mo"}),
        (f"{page}/", {"text": "hello\x00there", "send_queued": "on"}),
        (f"{page}/peers/send/", {"to": other_chat.pk, "sender": "chat", "text": "a\x00"}),
        (f"{page}/peers/send/", {"to": other_chat.pk + "\x00", "text": "hi"}),
        (f"{page}/peers/send/", {"to": other_chat.pk, "sender": "\x00", "text": "hi"}),
        (f"{page}/peers/connect/", {"other": other_chat.pk, "brief": "a\x00"}),
        (f"{page}/peers/connect/", {"other": "\x00", "brief": "hi"}),
        ("/settings/tokens/", {"name": "a\x00"}),
        ("/settings/peers/", {"peers_for_new_chats": "\x00"}),
    ]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_it_every_form_answers_a_nul_with_an_error_and_stores_nothing(
    owner_client, chat, other_chat, htmx
):
    reachable(chat, other_chat)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for url, data in form_posts(chat, other_chat):
        before = stored()
        response = owner_client.post(url, data, **headers)
        assert response.status_code in (200, 302, 400), (url, data, response.status_code)
        if url != "/settings/peers/":  # a checkbox: any value is "on", nothing to refuse
            assert response.status_code != 302, (url, data)
            assert stored() == before, (url, data)
            body = response.content.decode()
            assert any(words in body for words in SAID), (url, data)


def test_it_the_admin_limits_form_answers_a_nul_with_400(staff_client):
    before = stored()
    response = staff_client.post("/internal/admin/peers/", {"max_text": "12\x00"})
    assert response.status_code == 400
    assert stored() == before
