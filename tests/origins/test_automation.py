"""Chats started by scripts: manage.py start_chat, and start_chat over MCP and REST."""

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command

from accounts import keys
from accounts.actions import do_create_api_token
from chats.models import Chat, Turn
from crosstalk.mcp.server import TOOLBOX
from origins.models import Origin
from tests.origins.conftest import make_origin

pytestmark = pytest.mark.django_db


def mcp(secret: str, name: str, arguments: dict | None = None):
    return async_to_sync(TOOLBOX.call)(secret, name, arguments)


@pytest.fixture
def person(owner):
    return do_create_api_token(owner, name="mcp")[1]


def test_it_the_command_starts_a_receive_only_chat_running_the_text_as_outside_content(
    owner, capsys
):
    call_command("start_chat", "--origin", "automation", "--user", "alice", "--text=--help me")
    chat_id, thread = capsys.readouterr().out.split()
    chat = Chat.objects.get(pk=chat_id)
    assert chat.origin == "automation" and chat.from_outside
    turn = Turn.objects.get(chat=chat)
    assert turn.prompt.startswith('<outside-content origin="automation"')
    assert "--help me" in turn.prompt and thread.startswith("auto-")
    assert Origin.objects.filter(user=owner, kind="automation", name="Automation").count() == 1


def test_it_the_command_takes_template_options_and_a_thread_to_continue(owner, capsys):
    call_command(
        "start_chat",
        "--user",
        "alice",
        "--text",
        "one",
        "--name",
        "nightly",
        "--repository",
        "shop",
        "--branch",
        "main",
        "--thread",
        "nightly-1",
    )
    chat = Chat.objects.get(name="nightly")
    assert (chat.repository, chat.branch, chat.agent) == ("shop", "main", "demo")
    call_command("start_chat", "--user", "alice", "--text", "two", "--thread", "nightly-1")
    assert Turn.objects.filter(chat=chat).count() == 2


def test_it_the_command_uses_a_named_automation_origins_template(owner, capsys):
    make_origin(owner, "reports", kind="automation", repository="reports-repo")
    call_command("start_chat", "--origin", "reports", "--user", "alice", "--text", "go")
    assert Chat.objects.get(origin="automation").repository == "reports-repo"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--user", "nobody", "--text", "x"], "no active account"),
        (["--user", "alice", "--text", "x", "--origin", "missing"], "not_found"),
        (["--user", "alice", "--text", "  "], "empty_message"),
        (["--user", "alice", "--text", "x", "--agent", "nope", "--name", "n"], "invalid_input"),
        (["--user", "alice", "--text", "x", "--repository", "r"], "--name"),
    ],
)
def test_it_the_command_refuses_with_the_reason(owner, args, says):
    with pytest.raises(CommandError, match=says):
        call_command("start_chat", *args)
    assert not Chat.objects.exists()


def test_it_another_accounts_automation_origin_reads_as_missing(owner, outsider):
    theirs = make_origin(outsider, "theirs", kind="automation")
    with pytest.raises(CommandError, match="not_found"):
        call_command("start_chat", "--user", "alice", "--text", "x", "--origin", theirs.public_id)


def test_it_mcp_start_chat_with_automation_and_text_starts_it_from_outside(person):
    result = mcp(person, "start_chat", {"name": "cron", "origin": "automation", "text": "hi"})
    assert not result.is_error, result.content[0].text
    body = result.structured_content
    assert body["origin"] == "automation" and body["agent_key"] == ""
    assert "from outside" in result.content[0].text
    turn = Turn.objects.get(chat_id=body["id"])
    assert turn.prompt.startswith('<outside-content origin="automation"')


def test_it_rest_and_mcp_start_an_outside_chat_alike(person, owner_api):
    mcp_body = mcp(person, "start_chat", {"name": "a", "origin": "automation", "text": "x"})
    rest = owner_api.call(
        "POST", "/api/v1/chats", {"name": "b", "origin": "automation", "text": "x"}
    )
    assert rest.status_code == 201, rest.content
    differs = {"id", "name", "created_at", "updated_at", "last_asked"}
    strip = lambda body: {k: v for k, v in body.items() if k not in differs}  # noqa: E731
    assert strip(mcp_body.structured_content) == strip(rest.json())


def test_it_text_with_another_origin_is_refused(person, owner_api):
    result = mcp(person, "start_chat", {"name": "x", "origin": "github", "text": "hi"})
    assert result.is_error and result.structured_content["code"] == "invalid_input"
    rest = owner_api.call("POST", "/api/v1/chats", {"name": "y", "origin": "user", "text": "hi"})
    assert rest.status_code == 400 and rest.json()["code"] == "invalid_input"
    assert not Chat.objects.exists()


def test_it_a_taken_name_is_refused_and_starts_nothing(person, chat):
    result = mcp(person, "start_chat", {"name": chat.name, "origin": "automation", "text": "x"})
    assert result.is_error and result.structured_content["code"] == "name_taken"
    assert not Turn.objects.exists()


@pytest.mark.parametrize("tool", ["ListChats", "ReadChat", "MessageChat"])
def test_it_the_outside_chats_agent_is_refused_outside_origin(person, chat, tool):
    started = mcp(person, "start_chat", {"name": "cron", "origin": "automation", "text": "x"})
    outside = Chat.objects.get(pk=started.structured_content["id"])
    secret = keys.new_secret("cak")  # test setup: a key for the outside chat's agent
    Chat.objects.filter(pk=outside.pk).update(agent_key_digest=keys.digest(secret), peers=True)
    arguments = {
        "ListChats": {},
        "ReadChat": {"chat": chat.pk},
        "MessageChat": {"to": chat.pk, "text": "hi"},
    }
    result = mcp(secret, tool, arguments[tool])
    assert result.is_error
    assert result.structured_content["code"] == "outside_origin"
