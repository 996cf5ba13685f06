"""Who may run agents on this server: `agents.run_hosted` for command and hosted
chats (a working folder), nothing for attached and demo chats; a working folder
is one of the person's own."""

import html

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command

from accounts.actions import do_allow_runners, do_create_api_token
from accounts.models import User
from chats.models import Chat, Turn
from crosstalk.mcp.server import TOOLBOX
from tests.conftest import make_chat, own_folder

COMMAND = {"name": "shell", "agent": "command", "command": "cat"}


def hosted(folder) -> dict:
    return {"name": "hosted", "agent": "claude-code", "folder": str(folder)}


def refused_runners(response) -> None:
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "runners_not_allowed"
    assert "allow_runners" in body["message"] and "/internal/admin/peers" in body["message"]


def mcp(secret: str, name: str, arguments: dict):
    return async_to_sync(TOOLBOX.call)(secret, name, arguments)


@pytest.mark.parametrize("kind", ["command", "hosted"])
def test_it_an_account_without_the_permission_cannot_create_a_process_chat(
    kind, owner, owner_api, tmp_path
):
    spec = COMMAND if kind == "command" else hosted(tmp_path)
    refused_runners(owner_api.call("POST", "/api/v1/chats", spec))
    assert not Chat.objects.filter(user=owner).exists()


@pytest.mark.parametrize(
    "spec",
    [
        {"name": "attached", "agent": "claude-code"},
        {"name": "attached-gemini", "agent": "gemini", "folder": ""},
        {"name": "demo", "agent": "demo"},
    ],
)
def test_it_an_account_without_the_permission_creates_attached_and_demo_chats(spec, owner_api):
    response = owner_api.call("POST", "/api/v1/chats", spec)
    assert response.status_code == 201, response.json()


def test_it_the_chat_form_refuses_a_command_chat_without_the_permission(owner, owner_client):
    form = {"name": "shell", "agent": "command", "command": "cat", "repository": "", "branch": ""}
    page = html.unescape(owner_client.post("/chats/", form).content.decode())
    assert "may not run agents on this server" in page and "allow_runners" in page
    assert not Chat.objects.filter(user=owner).exists()


def test_it_mcp_start_chat_refuses_a_hosted_chat_without_the_permission(owner, tmp_path):
    _token, secret = do_create_api_token(owner, name="t")
    result = mcp(secret, "start_chat", hosted(tmp_path))
    assert result.is_error
    assert result.content[0].text.startswith("runners_not_allowed: ")
    assert not Chat.objects.filter(user=owner).exists()
    assert not mcp(secret, "start_chat", {"name": "mine", "agent": "codex"}).is_error


def revoke_after(chat: Chat) -> Chat:
    """The chat was made while its owner was allowed; then an admin took it back."""
    do_allow_runners(chat.user, allowed=False)
    return chat


@pytest.fixture
def revoked_command_chat(owner):
    return revoke_after(make_chat(owner, "shell", agent="command", command="cat"))


def test_it_a_command_chat_cannot_be_prompted_once_the_permission_is_gone(
    revoked_command_chat, owner_api, owner_client
):
    chat = revoked_command_chat
    refused_runners(owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "id"}))
    page = html.unescape(owner_client.post(f"/chats/{chat.pk}/", {"text": "id"}).content.decode())
    assert "may not run agents on this server" in page
    assert not Turn.objects.filter(chat=chat).exists()
    assert not chat.entries.exists()


def test_it_a_granted_account_creates_and_prompts_a_command_chat(runner_owner, owner_api):
    response = owner_api.call("POST", "/api/v1/chats", COMMAND)
    assert response.status_code == 201
    chat_id = response.json()["id"]
    prompted = owner_api.call("POST", f"/api/v1/chats/{chat_id}/prompts", {"text": "hi"})
    assert prompted.status_code == 202


def test_it_a_superuser_needs_no_grant(db):
    root = User.objects.create_superuser("root", password="root-password-1")
    chat = make_chat(root, "hosted", agent="codex", folder=str(own_folder(root)))
    assert chat.folder == str(own_folder(root))


def test_it_allow_runners_grants_and_revokes(owner, capsys):
    call_command("allow_runners", "alice")
    assert "alice may now run" in capsys.readouterr().out
    assert User.objects.get(pk=owner.pk).has_perm("agents.run_hosted")

    call_command("allow_runners", "alice", "--revoke")
    assert "alice may no longer run" in capsys.readouterr().out
    assert not User.objects.get(pk=owner.pk).has_perm("agents.run_hosted")


def test_it_allow_runners_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("allow_runners", "nobody")


def test_it_seed_demo_lets_the_demo_account_run_agents(db):
    call_command("seed_demo")
    assert User.objects.get(username="demo").has_perm("agents.run_hosted")


# AGENT_FOLDERS (tests/chats/test_folders.py has the whole rule) ---------------------


def refused_folder(response) -> str:
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert response.json()["message"].startswith("folder: ")
    return response.json()["message"]


def test_it_a_folder_outside_the_persons_own_is_refused(runner_owner, owner_api, tmp_path):
    message = refused_folder(owner_api.call("POST", "/api/v1/chats", hosted(tmp_path)))
    assert message.endswith(f"inside {own_folder(runner_owner).parent}/.")
    assert not Chat.objects.exists()


def test_it_a_folder_inside_the_persons_own_is_taken(runner_owner, owner_api):
    response = owner_api.call("POST", "/api/v1/chats", hosted(own_folder(runner_owner, "repo")))
    assert response.status_code == 201


def test_it_a_symlink_inside_the_persons_own_that_leads_out_is_refused(
    runner_owner, owner_api, tmp_path
):
    mine = own_folder(runner_owner).parent
    (mine / "escape").symlink_to(tmp_path)
    refused_folder(owner_api.call("POST", "/api/v1/chats", hosted(mine / "escape")))
    refused_folder(owner_api.call("POST", "/api/v1/chats", hosted(f"{mine}/../../elsewhere")))
    assert not Chat.objects.exists()


@pytest.mark.parametrize("folder", ["-rf", "--yolo", "-"])
def test_it_a_folder_starting_with_a_dash_is_one_of_the_persons_own(
    runner_owner, owner_api, folder, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # not the server's current folder's, where one exists
    (tmp_path / folder).mkdir()
    spec = {**COMMAND, "folder": folder}
    assert owner_api.call("POST", "/api/v1/chats", spec).status_code == 201
    assert Chat.objects.get().folder == str(own_folder(runner_owner).parent / folder)
