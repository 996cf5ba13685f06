"""The hooks endpoints always answer JSON: wrong keys, bad bodies, other accounts."""

import pytest

from chats.actions import do_set_session_id
from chats.models import Chat, Turn
from kernel.refusals import Refusal
from peers.models import PeerMessage
from tests.conftest import ApiClient
from tests.peers.conftest import reachable
from tests.peers.hooks import cli_chat, hook, sample, send

CLI = "claude-code"


@pytest.fixture
def claude(owner):
    return cli_chat(owner, CLI, "api-claude")


def refused(response, status: int, code: str) -> None:
    assert response["Content-Type"] == "application/json"
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["message"]


@pytest.mark.parametrize("cli", ["claude-code", "codex", "gemini"])
def test_it_refuses_a_wrong_key_with_401_json(db, cli):
    refused(hook("cak_not-a-key", cli, sample(cli, "SessionStart")), 401, "not_authenticated")


def test_it_refuses_a_person_token_on_the_hooks(owner_api):
    response = owner_api.call("POST", "/api/v1/agent/hooks/claude-code", sample(CLI, "Stop"))
    refused(response, 401, "not_authenticated")


def test_it_needs_no_csrf_token(claude):
    # Django's test client skips CSRF checks unless asked; a real CLI sends none.
    client = ApiClient(claude.agent_key, enforce_csrf_checks=True)
    response = client.call("POST", "/api/v1/agent/hooks/claude-code", sample(CLI, "SessionStart"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("{not json", "JSON"),
        ("[1, 2]", "object"),
        ({"hook_event_name": "Stop"}, "session_id"),
        ({"session_id": "s"}, "hook_event_name"),
        ({"session_id": 7, "hook_event_name": "Stop"}, "session_id"),
        ({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": "yes"}, "stop_hook"),
        ({"session_id": "s", "hook_event_name": "UserPromptSubmit"}, "prompt"),
        ({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": 3}, "prompt"),
    ],
)
def test_it_refuses_a_malformed_payload_with_400_json(claude, body, field):
    response = hook(claude, CLI, body)
    refused(response, 400, "invalid_input")
    assert field in response.json()["message"]


def test_it_answers_an_unknown_cli_with_404_json(claude):
    refused(hook(claude, "cursor", sample(CLI, "Stop")), 404, "not_found")


def test_it_refuses_other_methods_with_405_json(claude):
    response = ApiClient(claude.agent_key).get("/api/v1/agent/hooks/claude-code")
    refused(response, 405, "method_not_allowed")


def test_it_lets_an_outsider_key_touch_only_its_own_chat(claude, chat, outsider):
    reachable(chat)
    hook(claude, CLI, sample(CLI, "UserPromptSubmit", prompt="work"))
    message = send(chat, claude)
    theirs = cli_chat(outsider, CLI, "theirs")

    for event in ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        answer = hook(theirs, CLI, sample(CLI, event, prompt="x"))
        assert answer.json() == {}

    message.refresh_from_db()
    claude.refresh_from_db()
    assert message.state == PeerMessage.State.PENDING
    assert claude.status == Chat.Status.RUNNING
    assert claude.turns.get().state == Turn.State.RUNNING
    assert Chat.objects.get(pk=theirs.pk).status == Chat.Status.IDLE


@pytest.mark.parametrize("cli", ["claude-code", "codex", "gemini"])
@pytest.mark.parametrize(
    "session_id",
    ["--yolo", "-x", "a" * 129, "b" * 200, "has space", "semi;colon", "new\nline", "é", ""],
)
def test_it_refuses_a_session_id_that_could_be_an_option_and_stores_nothing(owner, cli, session_id):
    agent = cli_chat(owner, cli)
    response = hook(agent, cli, sample(cli, "SessionStart", session_id=session_id))
    refused(response, 400, "invalid_input")
    assert "session_id" in response.json()["message"]
    agent.refresh_from_db()
    assert agent.session_id == ""


@pytest.mark.parametrize("session_id", ["a" * 128, "0f2c-9a.b:c_d", "_x", ":y", "7"])
def test_it_takes_session_ids_shaped_like_the_clis_own(claude, session_id):
    response = hook(claude, CLI, sample(CLI, "SessionStart", session_id=session_id))
    assert response.status_code == 200
    claude.refresh_from_db()
    assert claude.session_id == session_id


def test_it_a_cli_cannot_store_an_option_as_its_session_id_either(claude):
    with pytest.raises(Refusal):
        do_set_session_id(claude, session_id="--mcp-config={}")
    claude.refresh_from_db()
    assert claude.session_id == ""
