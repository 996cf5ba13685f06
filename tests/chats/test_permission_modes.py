"""Permission modes: each adapter lists its own; an unknown one is refused at chat
creation with invalid_input naming the valid ones, alike in REST, MCP and the form."""

import re

import pytest
from asgiref.sync import async_to_sync

from accounts.actions import do_create_api_token
from chats.models import Chat
from crosstalk.mcp.server import TOOLBOX

CODEX_MODES = "read-only, workspace-write, danger-full-access"


def refusal(response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["code"], body["message"]


@pytest.mark.parametrize(
    ("agent", "mode"),
    [("codex", "plan"), ("gemini", "acceptEdits"), ("claude-code", "yolo"), ("codex", "-x")],
)
def test_it_refuses_a_mode_the_agent_does_not_take_over_rest(owner_api, agent, mode):
    response = owner_api.call(
        "POST", "/api/v1/chats", {"name": "n", "agent": agent, "permission_mode": mode}
    )
    status, code, message = refusal(response)
    assert (status, code) == (400, "invalid_input")
    assert message.startswith("permission_mode: ") and "is one of" in message
    assert not Chat.objects.exists()


def test_it_names_the_valid_modes_and_the_default(owner_api):
    response = owner_api.call(
        "POST", "/api/v1/chats", {"name": "n", "agent": "codex", "permission_mode": "plan"}
    )
    assert f"one of {CODEX_MODES} (blank: workspace-write)" in response.json()["message"]


def test_it_refuses_any_mode_for_a_kind_without_modes(owner_api):
    response = owner_api.call(
        "POST", "/api/v1/chats", {"name": "n", "agent": "demo", "permission_mode": "default"}
    )
    assert refusal(response)[:2] == (400, "invalid_input")
    assert "takes no permission mode" in response.json()["message"]


@pytest.mark.parametrize(
    ("agent", "mode"), [("codex", "danger-full-access"), ("gemini", "plan"), ("codex", "")]
)
def test_it_accepts_the_agents_own_modes(owner_api, agent, mode):
    response = owner_api.call(
        "POST", "/api/v1/chats", {"name": "n", "agent": agent, "permission_mode": mode}
    )
    assert response.status_code == 201, response.json()
    assert Chat.objects.get().permission_mode == mode


def test_it_refuses_changing_to_a_mode_the_agent_does_not_take(owner_api, owner):
    created = owner_api.call("POST", "/api/v1/chats", {"name": "n", "agent": "gemini"}).json()
    path = f"/api/v1/chats/{created['id']}"
    status, code, message = refusal(owner_api.call("PATCH", path, {"permission_mode": "plan!"}))
    assert (status, code) == (400, "invalid_input") and "auto_edit" in message
    assert Chat.objects.get().permission_mode == ""
    assert owner_api.call("PATCH", path, {"permission_mode": "yolo"}).status_code == 200


def test_it_mcp_start_chat_refuses_it_as_rest_does(owner, owner_api):
    secret = do_create_api_token(owner, name="mcp")[1]
    arguments = {"name": "n", "agent": "codex", "permission_mode": "plan"}
    result = async_to_sync(TOOLBOX.call)(secret, "start_chat", arguments)
    rest = owner_api.call("POST", "/api/v1/chats", arguments).json()
    assert result.is_error
    assert result.structured_content["code"] == rest["code"] == "invalid_input"
    assert result.structured_content["message"] == rest["message"]
    assert not Chat.objects.exists()


# The New chat form ----------------------------------------------------------------


def mode_groups(html: str) -> dict[str, list[str]]:
    select = re.search(r'<select name="permission_mode".*?</select>', html, re.S).group(0)
    groups = re.findall(
        r'<optgroup label="[^"]*" data-agent="([^"]+)">(.*?)</optgroup>', select, re.S
    )
    return {kind: re.findall(r'<option value="([^"]+)"', body) for kind, body in groups}


def test_it_the_form_offers_each_agents_modes_as_a_select(owner_client):
    groups = mode_groups(owner_client.get("/chats/").content.decode())
    assert groups == {
        "claude-code": ["default", "acceptEdits", "plan", "bypassPermissions"],
        "codex": CODEX_MODES.split(", "),
        "gemini": ["default", "auto_edit", "yolo", "plan"],
    }


def test_it_the_form_refuses_another_agents_mode_by_the_field(owner_client):
    data = {"name": "n", "agent": "gemini", "permission_mode": "acceptEdits"}
    html = owner_client.post("/chats/", data).content.decode()
    assert "a Gemini chat&#x27;s permission mode is one of default, auto_edit, yolo, plan" in html
    assert not Chat.objects.exists()


def test_it_the_form_keeps_the_chosen_mode_only_in_the_chosen_agents_group(owner_client):
    # "plan" is Claude Code's and Gemini's: only Gemini's is selected on a re-shown form.
    data = {"name": "", "agent": "gemini", "permission_mode": "plan"}
    html = owner_client.post("/chats/", data).content.decode()
    assert html.count('<option value="plan" selected>') == 1
    gemini = re.search(r'data-agent="gemini">(.*?)</optgroup>', html, re.S).group(1)
    assert '<option value="plan" selected>' in gemini


def test_it_the_form_creates_a_chat_with_the_agents_mode(owner_client):
    data = {"name": "n", "agent": "claude-code", "permission_mode": "acceptEdits"}
    response = owner_client.post("/chats/", data)
    assert response.status_code == 302
    assert Chat.objects.get().permission_mode == "acceptEdits"


def test_it_the_forms_help_is_made_from_the_adapters(owner_client):
    html = owner_client.get("/chats/").content.decode()
    assert f"Codex: {CODEX_MODES}" in html
