"""A chat started from outside on the person's faces: Connect and "send as" refuse it
(outside_chat) alike on REST, MCP and the page; every picker marks it."""

import pytest

from chats.models import Chat, Entry
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.peers.test_mcp_tools import api_token, mcp, refusal_of

HTMX = {"HTTP_HX_REQUEST": "true"}
MARK = "outside · webhook"


@pytest.fixture
def outside(owner):
    chat = make_chat(owner, "ci · ticket-812", origin="webhook", peers=False)
    reachable(chat)
    return chat


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


def nothing_sent(outside: Chat) -> None:
    outside.refresh_from_db()
    assert not outside.peers  # Connect switched nothing on
    assert not PeerMessage.objects.exists()
    assert not Entry.objects.filter(kind__in=["peer_in", "peer_out"]).exists()


def refused_codes() -> list[str]:
    return list(Activity.objects.filter(action="refused").values_list("detail", flat=True))


def test_it_refuses_to_connect_an_outside_chat_alike_on_every_face(
    owner, sender, outside, owner_api, owner_client
):
    chats = [sender.pk, outside.pk]
    rest = owner_api.call("POST", "/api/v1/connections", {"chats": chats, "brief": "b"})
    assert rest.status_code == 403 and rest.json()["code"] == "outside_chat"
    assert refusal_of(mcp(api_token(owner), "connect_chats", {"chats": chats, "brief": "b"})) == (
        rest.json()
    )
    page = owner_client.post(
        f"/chats/{sender.pk}/peers/connect/", {"other": outside.pk, "brief": "b"}, **HTMX
    )
    assert page.status_code == 200
    assert rest.json()["message"] in page.content.decode()
    assert "ci · ticket-812 was started from outside (Webhook)" in rest.json()["message"]
    # Either way round.
    back = owner_api.call("POST", "/api/v1/connections", {"chats": chats[::-1], "brief": "b"})
    assert back.json()["code"] == "outside_chat"
    nothing_sent(outside)
    assert refused_codes() == ["outside_chat"]  # one row, its count the repeats


def test_it_refuses_to_send_as_an_outside_chat_alike_on_every_face(
    owner, sender, outside, owner_api, owner_client
):
    Chat.objects.filter(pk=outside.pk).update(peers=True)
    body = {"from_chat": outside.pk, "to_chat": sender.pk, "text": "hello"}
    rest = owner_api.call("POST", "/api/v1/messages", body)
    assert rest.status_code == 403 and rest.json()["code"] == "outside_chat"
    tool = {"fromChat": outside.pk, "toChat": sender.pk, "text": "hello"}
    assert refusal_of(mcp(api_token(owner), "send_peer_message", tool)) == rest.json()
    page = owner_client.post(
        f"/chats/{outside.pk}/peers/send/",
        {"to": sender.pk, "sender": "chat", "text": "hello"},
        **HTMX,
    )
    assert page.status_code == 200 and "cannot be connected with another chat or written as" in (
        page.content.decode()
    )
    assert not PeerMessage.objects.exists()


def test_it_the_person_may_still_write_to_it_as_themselves_or_as_another_chat(
    owner, sender, outside, owner_api
):
    Chat.objects.filter(pk=outside.pk).update(peers=True)
    for from_chat in (None, sender.pk):
        body = {"from_chat": from_chat, "to_chat": outside.pk, "text": "status?"}
        assert owner_api.call("POST", "/api/v1/messages", body).status_code == 201


def test_it_every_picker_marks_an_outside_chat(owner, sender, outside, owner_client):
    Chat.objects.filter(pk=outside.pk).update(peers=True)
    page = owner_client.get(f"/chats/{sender.pk}/").content.decode()
    send_to = page[page.index('<select id="send-to"') :].split("</select>")[0]
    assert f"ci · ticket-812 ({MARK})</option>" in send_to
    connect = page[page.index('<select id="connect-other"') :].split("</select>")[0]
    assert f'value="{outside.pk}" disabled>ci · ticket-812 ({MARK}: cannot be connected)' in (
        connect
    )
    rail = page[page.index('<nav class="chat-rail"') :].split("</nav>")[0]
    assert '<span class="badge outside-mark"' in rail and f">{MARK}</span>" in rail
    switcher = owner_client.get("/switch/").content.decode()
    link = switcher[switcher.index(f'data-chat="{outside.pk}"') :].split("</a>")[0]
    assert f">{MARK}</span>" in link
    own = switcher[switcher.index(f'data-chat="{sender.pk}"') :].split("</a>")[0]
    assert "outside-mark" not in own


def test_it_an_outside_chats_own_tab_offers_no_send_as_and_no_connect(outside, owner_client):
    tab = owner_client.get(f"/chats/{outside.pk}/peers/", **HTMX).content.decode()
    assert 'value="chat" disabled> You, as ci · ticket-812' in tab
    assert '<input type="radio" name="sender" value="you" checked>' in tab
    assert "it receives messages, but cannot be connected with another chat." in tab
