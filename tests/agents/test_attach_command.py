"""python manage.py agent_config CHAT --agent … [--write DIR | --remove DIR] [--url URL]"""

import io
import json
import os

import pytest
from django.core.management import CommandError, call_command

from chats.models import Chat
from kernel import listen
from tests.conftest import make_chat
from tests.peers.hooks import cli_chat, hook, sample


@pytest.fixture(autouse=True)
def private_places(tmp_path, settings, monkeypatch):
    """The person's per-user config folders and the server records, the test's own."""
    settings.VAR_DIR = tmp_path / "var"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))


def agent_config(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("agent_config", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def key_in(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Key: "))[5:]


def test_it_prints_the_files_and_the_clis_own_command_with_a_key_of_its_own(owner):
    claude = cli_chat(owner, "claude-code", "api-claude")
    out, err = agent_config("API-claude", "--agent", "claude-code", "--url", "http://h:1")

    new_key = key_in(out)
    assert "# .claude/settings.local.json" in out and f'"CROSSTALK_KEY": "{new_key}"' in out
    assert (
        "Or add the server with: claude mcp add --transport http --scope local crosstalk "
        f"http://h:1/mcp --header 'Authorization: Bearer {new_key}'"
    ) in out
    assert "Start: claude" in out and ".mcp.json" not in out
    assert "other sessions' keys keep working" in err
    assert hook(claude, "claude-code", sample("claude-code", "SessionStart")).status_code == 200
    assert hook(new_key, "claude-code", sample("claude-code", "SessionStart")).status_code == 200
    # The same CLI and folder again: that attachment's key is replaced, the chat's stays.
    again = key_in(agent_config("api-claude", "--agent", "claude-code", "--url", "http://h:1")[0])
    assert hook(new_key, "claude-code", sample("claude-code", "SessionStart")).status_code == 401
    assert hook(again, "claude-code", sample("claude-code", "SessionStart")).status_code == 200
    # Another CLI's attachment leaves this one working (issue 35).
    agent_config("api-claude", "--agent", "codex", "--url", "http://h:1")
    assert hook(again, "claude-code", sample("claude-code", "SessionStart")).status_code == 200


def test_it_prints_codex_and_gemini_lines_that_work_in_a_shell(owner):
    chat = cli_chat(owner, "codex")
    out, _ = agent_config(chat.name, "--agent", "codex", "--url", "http://h:1")
    assert "Start: env $(cat .crosstalk/env) codex --profile crosstalk" in out
    assert "'$PWD" not in out and "CODEX_HOME=" not in out
    assert (
        "codex mcp add crosstalk --url http://h:1/mcp --bearer-token-env-var CROSSTALK_KEY" in out
    )

    out, _ = agent_config(chat.name, "--agent", "gemini", "--url", "http://h:1")
    assert "gemini mcp add --scope user --transport http --trust crosstalk" in out
    assert "--header 'Authorization: Bearer ${CROSSTALK_KEY}'" in out
    assert f"CROSSTALK_KEY={key_in(out)}" in out  # the .crosstalk/env to put in the folder


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_it_writes_and_removes_in_a_folder(owner, tmp_path, agent):
    chat = cli_chat(owner, agent)
    folder = tmp_path / "work"
    folder.mkdir()
    out, _ = agent_config(chat.pk, "--agent", agent, "--write", str(folder), "--url", "http://h:1")
    assert "Wrote " in out

    out, err = agent_config(chat.pk, "--agent", agent, "--remove", str(folder))
    assert "Removed " in out and err == ""
    assert list(folder.iterdir()) == []


def test_it_stops_with_a_clear_error_on_a_file_it_cannot_parse(owner, tmp_path):
    chat = cli_chat(owner, "gemini")
    settings_path = tmp_path / ".gemini" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text("{oops")
    with pytest.raises(CommandError, match="settings.json is not valid JSON"):
        agent_config(chat.pk, "--agent", "gemini", "--write", str(tmp_path), "--url", "http://h:1")
    assert settings_path.read_text() == "{oops"
    # No new key was made for a write that did not happen: the old config still works.
    assert hook(chat, "gemini", sample("gemini", "SessionStart")).status_code == 200


@pytest.mark.parametrize("kind", ["demo", "command"])
def test_it_refuses_chats_that_cannot_attach_and_keeps_their_key(owner, kind):
    chat = make_chat(owner, "checkout", agent=kind, peers=True, **(
        {"command": "echo hi"} if kind == "command" else {}))  # fmt: skip
    with pytest.raises(CommandError, match="only claude-code, codex, gemini chats"):
        agent_config("checkout", "--agent", "claude-code", "--url", "http://h:1")
    assert hook(chat, "claude-code", sample("claude-code", "SessionStart")).status_code == 200


def test_it_turns_the_switch_on_and_says_so(owner):
    chat = make_chat(owner, "quiet", agent="codex", peers=False)
    _, err = agent_config("quiet", "--agent", "codex", "--url", "http://h:1")
    assert "Turned Agent-to-agent on for quiet" in err
    assert Chat.objects.get(pk=chat.pk).peers


@pytest.mark.django_db(transaction=True)
def test_it_uses_the_url_the_running_server_recorded(owner, live_server):
    chat = cli_chat(owner, "codex")
    with pytest.raises(CommandError, match="No running Crosstalk server .* pass --url"):
        agent_config(chat.pk, "--agent", "codex")

    recorded = listen.record(live_server.url)
    try:
        out, _ = agent_config(chat.pk, "--agent", "codex")
    finally:
        listen.forget(recorded)
    assert f"CROSSTALK_URL={live_server.url}" in out


@pytest.mark.django_db(transaction=True)
def test_it_ignores_a_record_of_a_server_that_is_gone_or_of_another_database(owner, live_server):
    chat = cli_chat(owner, "codex")
    folder = listen.folder()
    folder.mkdir(parents=True)
    gone = folder / "999999999.json"
    gone.write_text(
        json.dumps({"url": live_server.url, "pid": 999999999, "database": listen.database()})
    )
    other = folder / f"{os.getpid()}.json"
    other.write_text(json.dumps({"url": live_server.url, "pid": os.getpid(), "database": "x"}))

    with pytest.raises(CommandError, match="No running Crosstalk server"):
        agent_config(chat.pk, "--agent", "codex")
    assert not gone.exists()  # a killed server's record is cleaned up


def test_it_refuses_a_chat_it_cannot_find(owner):
    with pytest.raises(CommandError, match="no chat with the id or name"):
        agent_config("nope", "--agent", "codex", "--url", "http://h:1")


def test_it_asks_for_the_account_when_a_name_is_ambiguous(owner, outsider):
    cli_chat(owner, "codex", "same")
    cli_chat(outsider, "codex", "same")
    with pytest.raises(CommandError, match="--user"):
        agent_config("same", "--agent", "codex", "--url", "http://h:1")
    out, _ = agent_config("same", "--agent", "codex", "--user", "mallory", "--url", "http://h:1")
    assert "crosstalk.config.toml" in out


@pytest.mark.parametrize(
    "url", ["ftp://h", "127.0.0.1:8000", "http://h/ x", "http://h/$(id)", "-x", "http://h/\0"]
)
def test_it_refuses_a_url_a_file_or_shell_line_could_not_carry(owner, url):
    chat = cli_chat(owner, "codex")
    with pytest.raises(CommandError, match="--url"):
        agent_config(chat.pk, "--agent", "codex", "--url", url)
    assert hook(chat, "codex", sample("codex", "SessionStart")).status_code == 200  # same key
