"""Attached sessions are full members (issue 35), with the REAL CLIs.

A Claude Code, Codex or Gemini session attached with nothing but the lines
agent_config prints (the CLI's own `mcp add` line, then its start line: no hooks,
no files) connects, is listed to a peer, gets a peer's message in a tool result and
answers it; a prompt written to its chat reaches the session, never a CLI on the
server. agent_config --write / --remove leave a repository's committed files as they
were, create ~/.claude.json 0600, and a second CLI's attachment keeps the first's key."""

# ruff: noqa: F811 (the fixtures imported from test_attach_clis are parameters here)
import json
import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest

from tests.agentcli.clis import claude_env, codex_env, gemini_env, run_cli
from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn
from tests.agentcli.test_attach_clis import (  # noqa: F401 (fixtures)
    crosstalk,
    messenger,
    release_db_thread_connection,
    sender,
    served,
)
from tests.servers import manage

TURNS = {"claude-code": claude_turn, "codex": codex_turn, "gemini": gemini_turn}
ENVS = {"claude-code": claude_env, "codex": codex_env, "gemini": gemini_env}
FIXTURES = {"claude-code": "claude_cli", "codex": "codex_cli", "gemini": "gemini_cli"}
APIS = {"claude-code": "anthropic", "codex": "openai", "gemini": "gemini"}


@pytest.fixture(params=list(FIXTURES))
def cli(request):
    return request.param, request.getfixturevalue(FIXTURES[request.param])


def printed(crosstalk, chat: str, agent: str, home: Path) -> dict[str, str]:
    """What agent_config prints for a session (no --write): the key and the lines."""
    env = {k: v for k, v in crosstalk.env.items() if k != "CROSSTALK_URL"} | {"HOME": str(home)}
    out = manage(env, "agent_config", chat, "--agent", agent, "--user", crosstalk.user,
                 "--url", crosstalk.url)  # fmt: skip
    heads = {"Key: ": "key", "Or add the server with: ": "add", "Then start it with: ": "start"}
    lines = {}
    for line in out.splitlines():
        for head, name in heads.items():
            if line.startswith(head):
                lines[name] = line[len(head) :]
    return lines


class Session:
    """A session started as the person pastes the lines: the `mcp add` line in the
    folder, then the start line (its VAR=value words the environment, the rest the
    CLI's flags) for each headless turn."""

    def __init__(self, agent, cli, fake, home, workdir, lines):
        self.agent, self.cli, self.fake, self.home, self.workdir = agent, cli, fake, home, workdir
        self.env = ENVS[agent](fake, home)
        self.env["PATH"] = f"{Path(cli).parent}:{self.env['PATH']}"
        added = run_cli(["bash", "-c", lines["add"]], env=self.env, cwd=workdir, timeout=120)
        assert added.returncode == 0, added.stderr
        words = shlex.split(lines["start"])
        while "=" in words[0]:
            name, _, value = words.pop(0).partition("=")
            self.env[name] = value
        assert words[0] == {"claude-code": "claude"}.get(agent, agent), lines["start"]
        self.flags = words[1:]

    def turn(self, prompt: str):
        run = TURNS[self.agent]
        return run(self.cli, self.fake, self.home, self.workdir, prompt, *self.flags, env=self.env)


def listed_to(crosstalk, chat: dict, key: str) -> list[str]:
    return [c["name"] for c in crosstalk.call("GET", "/api/v1/agent/chats", key=key)["items"]]


def test_it_a_session_attached_with_the_one_liner_is_a_full_member(
    cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    agent, binary = cli
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    lines = printed(crosstalk, attached["name"], agent, cli_home)
    session = Session(agent, binary, messenger, cli_home, cli_workdir, lines)
    assert attached["name"] not in listed_to(crosstalk, attached, sender["agent_key"])

    first = session.turn("[[call ListChats {}]]\n[[say listed]]")

    assert first.final == "listed", first.describe()
    assert messenger.saw("checkout", APIS[agent])  # the tool answered: it connected
    assert attached["name"] in listed_to(crosstalk, attached, sender["agent_key"])

    answer = json.dumps({"to": sender["id"], "text": "PONG 8080", "waitSeconds": 0})
    sent = crosstalk.send(sender["agent_key"], attached["id"], f"[[call MessageChat {answer}]]\n"
                          "[[say answered]]")  # fmt: skip
    second = session.turn("[[call ListChats {}]]\n[[say nothing came]]")

    assert second.final == "answered", second.describe()
    message = crosstalk.message(sent["id"])
    assert (message["state"], message["path"]) == ("delivered", "tool_result")
    back = crosstalk.call("GET", f"/api/v1/messages?chat={attached['id']}")["items"]
    assert [m["text"] for m in back if m["from_chat"] == attached["id"]] == ["PONG 8080"]

    # The person writes to the chat (as the browser's composer does): queued for the
    # session, never a CLI run here, and its next tool call takes it.
    prompt = crosstalk.call(
        "POST", f"/api/v1/chats/{attached['id']}/prompts", {"text": "[[say from the person]]"}
    )
    assert prompt["turn"] is None and prompt["queued_message"]["state"] == "queued"
    third = session.turn("[[call ListChats {}]]\n[[say nothing came]]")
    assert third.final == "from the person", third.describe()
    chat = crosstalk.chat(attached["id"])
    assert chat["status"] != "failed" and chat["failure"] is None


def test_it_a_prompt_reaches_a_hooked_claude_sessions_next_prompt(
    claude_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    attached = crosstalk.new_chat("api-claude", "claude-code")
    crosstalk.agent_config("api-claude", "claude-code", cli_workdir, cli_home)
    prompt = crosstalk.call(
        "POST", f"/api/v1/chats/{attached['id']}/prompts", {"text": "FROM-THE-BROWSER"}
    )
    queued = prompt["queued_message"]
    assert prompt["turn"] is None

    run = claude_turn(claude_cli, messenger, cli_home, cli_workdir, "[[say done]]")

    assert run.final == "done", run.describe()
    message = crosstalk.message(queued["id"])
    assert (message["state"], message["path"]) == ("delivered", "turn_prompt")
    assert "FROM-THE-BROWSER" in json.dumps(messenger.model_calls("anthropic")[0].body)
    assert crosstalk.chat(attached["id"])["status"] == "idle"


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True)  # noqa: S603, S607
    return done.stdout


COMMITTED = {
    ".mcp.json": '{"mcpServers": {"github": {"url": "g"}}}',
    ".claude/settings.json": '{\n    "model": "opus"\n}\n',
    ".codex/config.toml": 'model = "o3"\n\n[mcp_servers.docs]\nurl = "d"\n',
    ".gemini/settings.json": '{\n\t"model": {"name": "x"}\n}',
}


def test_it_write_and_remove_leave_a_repositorys_committed_files_as_they_were(
    crosstalk, cli_home, cli_workdir
):
    git(cli_workdir, "init", "-q")
    for relative, text in COMMITTED.items():
        (cli_workdir / relative).parent.mkdir(parents=True, exist_ok=True)
        (cli_workdir / relative).write_text(text)
    git(cli_workdir, "add", ".")
    git(cli_workdir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "config")
    env = {k: v for k, v in crosstalk.env.items() if k != "CROSSTALK_URL"}
    env |= {"HOME": str(cli_home), "CODEX_HOME": str(cli_home / ".codex")}

    for agent in FIXTURES:
        crosstalk.new_chat(f"repo-{agent}", agent)
        crosstalk.agent_config(f"repo-{agent}", agent, cli_workdir, cli_home)
        assert git(cli_workdir, "status", "--porcelain", "--untracked-files=all") == ""
    claude_json = cli_home / ".claude.json"
    assert stat.S_IMODE(claude_json.stat().st_mode) == 0o600  # created with the key in it
    for agent in FIXTURES:
        manage(env, "agent_config", f"repo-{agent}", "--agent", agent, "--user", crosstalk.user,
               "--remove", str(cli_workdir))  # fmt: skip

    assert git(cli_workdir, "status", "--porcelain", "--untracked-files=all") == ""
    for relative, text in COMMITTED.items():
        assert (cli_workdir / relative).read_text() == text
    assert not claude_json.exists() and not (cli_workdir / ".crosstalk").exists()


def test_it_attaching_codex_after_claude_keeps_claudes_key(
    claude_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    attached = crosstalk.new_chat("api-both", "claude-code")
    crosstalk.agent_config("api-both", "claude-code", cli_workdir, cli_home)
    crosstalk.agent_config("api-both", "codex", cli_workdir, cli_home)
    args = json.dumps({"to": sender["id"], "text": "STILL-HERE", "waitSeconds": 0})

    run = claude_turn(claude_cli, messenger, cli_home, cli_workdir,
                      f"[[call MessageChat {args}]]\n[[say sent it]]")  # fmt: skip

    init = next(e for e in run.events if e.get("subtype") == "init")
    assert {s["name"]: s["status"] for s in init["mcp_servers"]}["crosstalk"] == "connected"
    assert run.final == "sent it", run.describe()
    items = crosstalk.call("GET", f"/api/v1/messages?chat={attached['id']}")["items"]
    assert [m["text"] for m in items if m["from_chat"] == attached["id"]] == ["STILL-HERE"]
    assert os.environ.get("CROSSTALK_KEY") is None  # nothing leaked into this process
