"""REST for people: /api/v1/chats and one chat's routes."""

import pytest

from accounts.keys import digest
from chats.actions import claim_next_turn, do_prompt
from chats.models import Chat, Entry, Turn
from tests.conftest import make_chat

CHAT_FIELDS = {
    "id",
    "name",
    "repository",
    "branch",
    "agent",
    "model",
    "permission_mode",
    "origin",
    "status",
    "peers",
    "inbound",
    "archived",
    "last_ran_at",
    "last_asked",
    "last_answered",
    "failure",
}


def test_it_creates_a_chat_and_shows_its_agent_key_once(runner_owner, owner_api, workdir):
    response = owner_api.call(
        "POST",
        "/api/v1/chats",
        {
            "name": "checkout",
            "repository": "shop-web",
            "branch": "feat/cart",
            "agent": "codex",
            "model": "gpt-5",
            "permission_mode": "read-only",
            "folder": str(workdir),
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == CHAT_FIELDS | {"agent_key"}
    chat = Chat.objects.get(pk=body["id"])
    assert chat.user == runner_owner and chat.folder == str(workdir)
    assert chat.agent_key_digest == digest(body["agent_key"])
    assert body["status"] == "idle" and body["origin"] == "user" and body["last_ran_at"] is None
    again = owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()
    assert "agent_key" not in again and again == {k: v for k, v in body.items() if k != "agent_key"}


def test_it_takes_the_accounts_default_for_peers_when_absent(owner, owner_api):
    owner.peers_for_new_chats = True
    owner.save(update_fields=["peers_for_new_chats"])
    assert owner_api.call("POST", "/api/v1/chats", {"name": "a"}).json()["peers"] is True
    assert (
        owner_api.call("POST", "/api/v1/chats", {"name": "b", "peers": False}).json()["peers"]
        is False
    )


def test_it_refuses_a_duplicate_name_ignoring_case(chat, owner_api):
    response = owner_api.call("POST", "/api/v1/chats", {"name": "CheckOut"})
    assert response.status_code == 400
    assert response.json()["code"] == "name_taken"


@pytest.mark.parametrize(
    "body",
    [
        {"name": 5},
        {"name": "x", "peers": "yes"},
        {"name": "x", "agent": "robot"},
        {},
        ["x"],
        {"name": "x", "unknown": 1},
        {"name": "x", "agent": "command"},
    ],
)
def test_it_refuses_bad_input_on_create(owner_api, body):
    response = owner_api.call("POST", "/api/v1/chats", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert not Chat.objects.exists()


def test_it_lists_the_accounts_chats_paginated(owner, chat, other_chat, outsider_chat, owner_api):
    make_chat(owner, "zeta")
    body = owner_api.call("GET", "/api/v1/chats?limit=2").json()
    assert body["count"] == 3
    assert [item["name"] for item in body["items"]] == ["checkout", "payments-api"]
    rest = owner_api.call("GET", "/api/v1/chats?limit=2&offset=2").json()
    assert [item["name"] for item in rest["items"]] == ["zeta"]
    assert all(set(item) == CHAT_FIELDS for item in body["items"] + rest["items"])
    assert all(isinstance(item["id"], str) for item in body["items"])


def test_it_refuses_bad_pagination(owner_api):
    response = owner_api.call("GET", "/api/v1/chats?limit=many")
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_it_gets_a_chat_with_iso_datetimes(chat, owner_api):
    do_prompt(chat, text="hello")
    claim_next_turn("tests")
    body = owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()
    chat.refresh_from_db()
    assert body["id"] == chat.pk and body["status"] == "running"
    assert body["last_ran_at"] == chat.last_ran_at.isoformat()
    assert body["last_asked"] == "hello"


def test_it_switches_peers_and_renames_with_patch(chat, owner_api):
    response = owner_api.call(
        "PATCH", f"/api/v1/chats/{chat.pk}", {"peers": False, "name": "cart", "model": "opus"}
    )
    assert response.status_code == 200
    assert response.json()["peers"] is False and response.json()["name"] == "cart"
    chat.refresh_from_db()
    assert (chat.peers, chat.name, chat.model) == (False, "cart", "opus")


def test_it_keeps_its_own_name_in_another_case(chat, owner_api):
    response = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"name": "CHECKOUT"})
    assert response.status_code == 200 and response.json()["name"] == "CHECKOUT"


def test_it_refuses_renaming_onto_another_chats_name(chat, other_chat, owner_api):
    response = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", {"name": "Payments-API"})
    assert response.status_code == 400
    assert response.json()["code"] == "name_taken"
    chat.refresh_from_db()
    assert chat.name == "checkout"


@pytest.mark.parametrize("body", [{"peers": "off"}, {"peers": 0}, {"name": ""}, {"status": "idle"}])
def test_it_refuses_bad_types_on_patch(chat, owner_api, body):
    response = owner_api.call("PATCH", f"/api/v1/chats/{chat.pk}", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    chat.refresh_from_db()
    assert chat.peers is True and chat.name == "checkout"


def test_it_refuses_a_body_that_is_not_json(chat, owner_api):
    response = owner_api.generic(
        "PATCH", f"/api/v1/chats/{chat.pk}", "{nope", content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_it_accepts_a_prompt_and_requests_a_turn(chat, owner_api):
    response = owner_api.call(
        "POST",
        f"/api/v1/chats/{chat.pk}/prompts",
        {"text": "add a cart badge", "send_queued": False},
    )
    assert response.status_code == 202
    assert response.json()["last_asked"] == "add a cart badge"
    turn = Turn.objects.get(chat=chat)
    assert response.json()["turn"]["id"] == str(turn.pk)
    assert (turn.state, turn.trigger, turn.prompt, turn.send_queued) == (
        "requested",
        "prompt",
        "add a cart badge",
        False,
    )
    entry = Entry.objects.get(chat=chat)
    assert (entry.kind, entry.text) == ("prompt", "add a cart badge")


def test_it_sends_queued_messages_by_default(chat, owner_api):
    owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "go"})
    assert Turn.objects.get(chat=chat).send_queued is True


@pytest.mark.parametrize("text", ["", "   \n"])
def test_it_refuses_an_empty_prompt(chat, owner_api, text):
    response = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": text})
    assert response.status_code == 400
    assert response.json()["code"] == "empty_message"
    assert not Turn.objects.exists() and not Entry.objects.exists()


def test_it_refuses_a_prompt_of_the_wrong_type(chat, owner_api):
    response = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": 3})
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_it_stops_a_running_chat_and_cancels_its_turns(chat, owner_api):
    do_prompt(chat, text="first")
    running = claim_next_turn("tests")
    do_prompt(chat, text="second")
    response = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/stop")
    assert response.status_code == 200
    assert response.json()["status"] == "stopped"
    assert set(Turn.objects.values_list("state", flat=True)) == {"cancelled"}
    running.refresh_from_db()
    assert running.ended_at is not None


def test_it_stops_an_idle_chat(chat, owner_api):
    response = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/stop/")
    assert response.json()["status"] == "stopped"
    chat.refresh_from_db()
    assert chat.status == "stopped"


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("GET", ""),
        ("PATCH", ""),
        ("POST", "/prompts"),
        ("POST", "/stop"),
    ],
)
def test_it_answers_with_a_trailing_slash_without_redirect(chat, owner_api, method, suffix):
    body = {"text": "hi"} if suffix == "/prompts" else {}
    response = owner_api.call(method, f"/api/v1/chats/{chat.pk}{suffix}/", body)
    assert response.status_code in {200, 202}
    assert "Location" not in response


def test_it_lists_with_a_trailing_slash(chat, owner_api):
    response = owner_api.call("GET", "/api/v1/chats/")
    assert response.status_code == 200 and response.json()["count"] == 1


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("PUT", ""),
        ("POST", ""),
        ("GET", "/prompts"),
        ("GET", "/stop"),
        ("PUT", "/stop"),
    ],
)
def test_it_answers_a_wrong_method_with_json_405(chat, owner_api, method, suffix):
    response = owner_api.call(method, f"/api/v1/chats/{chat.pk}{suffix}")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert response["Allow"]


def test_it_answers_delete_on_the_list_with_json_405(owner_api):
    response = owner_api.call("DELETE", "/api/v1/chats")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/v1/chats/x/y/z", "/api/v1/"])
def test_it_answers_an_unknown_route_with_json_404(owner_api, path):
    response = owner_api.call("GET", path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_it_refuses_calls_without_a_token(chat, client):
    response = client.get("/api/v1/chats")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_it_refuses_an_agent_key_on_the_persons_routes(chat, agent_api):
    response = agent_api.call("GET", f"/api/v1/chats/{chat.pk}")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
