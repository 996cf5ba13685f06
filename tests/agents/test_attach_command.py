"""python manage.py agent_config CHAT --agent … [--write DIR]"""

import io
import json
import stat

import pytest
from django.core.management import CommandError, call_command

from tests.peers.hooks import cli_chat, hook, sample


def agent_config(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("agent_config", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def key_in(out: str) -> str:
    line = next(line for line in out.splitlines() if line.startswith("Environment: "))
    return line.split("CROSSTALK_KEY=")[1].split()[0]


def test_it_prints_the_files_and_lines_and_rotates_the_key(owner):
    claude = cli_chat(owner, "claude-code", "api-claude")
    out, err = agent_config("API-claude", "--agent", "claude-code", "--url", "http://h:1")

    assert "# .mcp.json" in out and "# .claude/settings.local.json" in out
    assert "Environment: CROSSTALK_URL=http://h:1 CROSSTALK_KEY=cak_" in out
    assert "Start: claude" in out
    assert "Rotated the agent key" in err
    new_key = key_in(out)
    assert f"Bearer {new_key}" in out
    assert hook(claude, "claude-code", sample("claude-code", "SessionStart")).status_code == 401
    assert hook(new_key, "claude-code", sample("claude-code", "SessionStart")).status_code == 200


def test_it_writes_what_claude_reads_in_the_folder(owner, tmp_path):
    claude = cli_chat(owner, "claude-code")
    out, _ = agent_config(claude.pk, "--agent", "claude-code", "--write", str(tmp_path))

    mcp = json.loads((tmp_path / ".mcp.json").read_text())
    assert mcp["mcpServers"]["crosstalk"]["headers"]["Authorization"] == f"Bearer {key_in(out)}"
    settings = tmp_path / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert f"Wrote {tmp_path / '.mcp.json'}" in out


@pytest.mark.parametrize(
    ("agent", "path"),
    [("codex", ".crosstalk/codex/config.toml"), ("gemini", ".gemini/settings.json")],
)
def test_it_writes_codex_and_gemini_files(owner, tmp_path, agent, path):
    chat = cli_chat(owner, agent)
    out, _ = agent_config(chat.name, "--agent", agent, "--write", str(tmp_path))
    assert (tmp_path / path).is_file()
    assert "Start: CROSSTALK_URL=" in out


def test_it_refuses_a_chat_it_cannot_find(owner):
    with pytest.raises(CommandError, match="no chat with the id or name"):
        agent_config("nope", "--agent", "codex")


def test_it_asks_for_the_account_when_a_name_is_ambiguous(owner, outsider):
    cli_chat(owner, "codex", "same")
    cli_chat(outsider, "codex", "same")
    with pytest.raises(CommandError, match="--user"):
        agent_config("same", "--agent", "codex")
    out, _ = agent_config("same", "--agent", "codex", "--user", "mallory")
    assert "config.toml" in out
