"""Rename, archive and delete a chat: REST and MCP alike, and what each leaves behind."""

import pytest

from chats.actions import do_issue_attachment_key
from chats.models import AgentKey, Chat, Entry, Turn
from crosstalk.chat_lifecycle import check_delete_chat
from peers.actions import check_send_message, check_stop_chat
from peers.models import IdleWatch, Notice, PeerMessage
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running
from tests.peers.test_mcp_tools import answered, mcp, refusal_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(owner_api):
    return owner_api.defaults["HTTP_AUTHORIZATION"].removeprefix("Bearer ")


def listed(api, query: str = "") -> list[str]:
    return [chat["name"] for chat in api.call("GET", f"/api/v1/chats{query}").json()["items"]]


def test_it_renames_a_chat(owner_api, chat):
    body = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"name": "till"}).json()
    assert body["name"] == "till"
    assert Chat.objects.get(pk=chat.pk).name == "till"


def test_it_archives_out_of_the_list_and_back(owner_api, chat, other_chat):
    body = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"archived": True}).json()
    assert body["archived"] is True
    assert listed(owner_api) == ["payments-api"]
    assert listed(owner_api, "?archived=1") == ["checkout", "payments-api"]
    assert owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()["archived"] is True
    owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"archived": False})
    assert listed(owner_api) == ["checkout", "payments-api"]


def test_it_refuses_messages_to_an_archived_chat_as_not_reachable(owner, chat, other_chat):
    reachable(chat, other_chat)
    Chat.objects.filter(pk=other_chat.pk).update(archived=True)
    api = ApiClient(chat.agent_key)
    response = api.call("POST", "/api/v1/agent/messages", {"to": other_chat.pk, "text": "hi"})
    assert response.status_code == 403 and response.json()["code"] == "not_reachable"
    reach = api.call("GET", "/api/v1/agent/chats").json()["items"]
    assert other_chat.pk not in [item["id"] for item in reach]


def test_it_deletes_a_chat_and_answers_204(owner_api, chat, other_chat):
    reachable(chat, other_chat)
    sent = check_send_message(chat, to=other_chat.pk, text="the schema moved")
    Entry.objects.create(chat=chat, kind=Entry.Kind.PROMPT, text="secret plan")
    response = owner_api.call("DELETE", f"/api/v1/chats/{chat.pk}")
    assert response.status_code == 204 and response.content == b""
    assert owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()["code"] == "no_chat"
    assert owner_api.call("DELETE", f"/api/v1/chats/{chat.pk}").status_code == 404
    assert listed(owner_api, "?archived=1") == ["payments-api"]
    assert not Entry.objects.filter(chat_id=chat.pk).exists()
    # The message stays in the other chat's history, from "a deleted chat".
    message = PeerMessage.objects.get(pk=sent.pk)
    assert message.from_chat.name == "a deleted chat"
    shown = owner_api.call("GET", f"/api/v1/messages/{sent.pk}").json()
    assert shown["from_chat"] == chat.pk and shown["text"] == "the schema moved"


def test_a_deleted_chats_key_answers_401(chat, other_chat, owner):
    reachable(chat, other_chat)
    api = ApiClient(chat.agent_key)
    assert api.call("GET", "/api/v1/agent/chats").status_code == 200
    check_delete_chat(owner, chat.pk)
    response = api.call("GET", "/api/v1/agent/chats")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


def test_a_deleted_chats_attachment_keys_answer_401_too(chat, other_chat, owner):
    reachable(chat, other_chat)
    _, secret = do_issue_attachment_key(chat, cli="codex", folder="/work/api")
    api = ApiClient(secret)
    assert api.call("GET", "/api/v1/agent/chats").status_code == 200
    check_delete_chat(owner, chat.pk)
    response = api.call("GET", "/api/v1/agent/chats")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
    assert not AgentKey.objects.filter(chat_id=chat.pk, revoked_at__isnull=True).exists()


def test_delete_stops_a_running_turn_first(owner, chat):
    turn = running(chat)
    check_delete_chat(owner, chat.pk)
    assert not Turn.objects.filter(pk=turn.pk).exists()
    assert Chat.objects.get(pk=chat.pk).status == "stopped"


def test_messages_waiting_for_a_deleted_chat_are_not_delivered(owner, chat, other_chat):
    reachable(chat, other_chat)
    running(other_chat)
    sent = check_send_message(chat, to=other_chat.pk, text="are you there")
    check_delete_chat(owner, other_chat.pk)
    sent.refresh_from_db()
    assert sent.state == "not_delivered" and "deleted" in sent.note
    notice = Entry.objects.filter(chat=chat, kind=Entry.Kind.NOTICE).last()
    assert "was deleted" in notice.text


def test_a_deleted_chats_senders_hear_not_delivered_and_its_watches_end(owner, chat, other_chat):
    reachable(chat, other_chat)
    check_stop_chat(other_chat)  # its message is held first: the delete must say more
    sent = check_send_message(chat, to=other_chat.pk, text="are you there", notify_when_idle=True)
    check_delete_chat(owner, other_chat.pk)
    states = list(
        Notice.objects.filter(message=sent, told_at__isnull=True).values_list("state", flat=True)
    )
    assert states[-1] == "not_delivered"
    watch = IdleWatch.objects.get(from_chat=chat, to_chat=other_chat)
    assert (watch.outcome, watch.ended_at is not None) == ("unreachable", True)
    assert not PeerMessage.objects.filter(sent_by="notice", to_chat=chat).exists()


def test_its_name_is_free_again_after_delete(owner, owner_api, chat):
    check_delete_chat(owner, chat.pk)
    make_chat(owner, "checkout")
    again = make_chat(owner, "other")
    check_delete_chat(owner, again.pk)  # two deleted chats share the name "a deleted chat"


def test_another_accounts_chat_is_not_found(outsider_api, chat):
    for method, body in (("DELETE", None), ("PATCH", {"archived": True})):
        response = outsider_api.call(method, f"/api/v1/chats/{chat.pk}", body)
        assert response.status_code == 404 and response.json()["code"] == "no_chat"
    assert Chat.objects.get(pk=chat.pk).deleted_at is None


def test_a_chat_key_cannot_delete_or_archive(chat, other_chat):
    api = ApiClient(chat.agent_key)
    assert api.call("DELETE", f"/api/v1/chats/{other_chat.pk}").status_code == 401
    response = api.call("PATCH", f"/api/v1/chats/{other_chat.pk}", {"archived": True})
    assert response.status_code == 401
    assert mcp(chat.agent_key, "delete_chat", {"chat": other_chat.pk}).is_error
    assert Chat.objects.get(pk=other_chat.pk).deleted_at is None


@pytest.mark.parametrize("value", ["-rf", "chat\x00x", "x" * 5000])
def test_odd_ids_are_no_chat(owner_api, token, value):
    response = owner_api.call("DELETE", f"/api/v1/chats/{value}")
    assert response.status_code in (400, 404)
    assert refusal_of(mcp(token, "delete_chat", {"chat": value}))["code"] in (
        "no_chat",
        "invalid_input",
    )


def test_mcp_archives_and_deletes_like_rest(token, owner_api, chat, other_chat, outsider_api):
    body = answered(mcp(token, "update_chat", {"chat": chat.pk, "archived": True}))
    assert body == owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()
    listed_by_mcp = answered(mcp(token, "list_peer_chats", {}))
    assert listed_by_mcp == owner_api.call("GET", "/api/v1/chats").json()
    answered(mcp(token, "delete_chat", {"chat": chat.pk}))
    assert refusal_of(mcp(token, "delete_chat", {"chat": chat.pk}))["code"] == "no_chat"
    theirs = outsider_api.defaults["HTTP_AUTHORIZATION"].removeprefix("Bearer ")
    assert refusal_of(mcp(theirs, "delete_chat", {"chat": other_chat.pk}))["code"] == "no_chat"


def test_a_deleted_chat_is_missing_on_every_face(owner, owner_client, chat):
    from chats.consumers import owns_chat

    check_delete_chat(owner, chat.pk)
    assert not owns_chat(owner, chat.pk)  # its page's websocket is refused as a missing one
    for path in ("", "header/", "conversation/", "peers/"):
        assert owner_client.get(f"/chats/{chat.pk}/{path}").status_code == 404, path
    assert f'data-chat="{chat.pk}"' not in owner_client.get("/switch/").content.decode()
