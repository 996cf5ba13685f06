"""bin/crosstalk-hook: the payload on stdin, Crosstalk's answer on stdout, never a broken agent."""

import json
import os
import shlex
import socket
import subprocess

import pytest

from agents.attach.common import hook_command
from agents.hooks.handling import PROMPT_LINE
from chats.models import Chat, Turn
from tests.peers.hooks import cli_chat, sample


def run_hook(cli: str, payload, *, url: str, key: str, tmp=None) -> subprocess.CompletedProcess:
    body = payload if isinstance(payload, str) else json.dumps(payload)
    env = {"CROSSTALK_URL": url, "CROSSTALK_KEY": key, "PATH": "/usr/bin:/bin"}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run(  # noqa: S603
        shlex.split(hook_command(cli)),  # as the generated configs run it
        input=body,
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def warning(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["systemMessage"] if done.stdout else ""


@pytest.mark.parametrize("cli", ["claude-code", "codex", "gemini"])
def test_it_tells_the_session_once_when_crosstalk_is_unreachable(cli, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    payload = sample(cli, "Stop" if cli != "gemini" else "AfterAgent")
    first = run_hook(cli, payload, url=url, key="cak_x", tmp=tmp_path)

    assert warning(first).startswith(f"Crosstalk: cannot reach the server at {url} (")
    assert "will not reach this session" in warning(first)
    assert "cannot reach the server" in first.stderr
    again = run_hook(cli, payload, url=url, key="cak_x", tmp=tmp_path)
    assert (again.returncode, again.stdout) == (0, "")  # once per session
    other = run_hook(cli, {**payload, "session_id": "another"}, url=url, key="cak_x", tmp=tmp_path)
    assert warning(other)
    marker_dir = next(tmp_path.iterdir())
    assert marker_dir.stat().st_mode & 0o777 == 0o700


def test_it_does_not_trust_a_marker_folder_others_can_write(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    shared = tmp_path / f"crosstalk-hook-{os.getuid()}"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    payload = sample("claude-code", "Stop")
    for _ in range(2):  # told every time rather than silenced by someone else's marker
        assert warning(run_hook("claude-code", payload, url=url, key="k", tmp=tmp_path))


def test_it_does_nothing_without_its_environment():
    # A session that is not attached (a Codex profile's hooks outside it, say).
    done = run_hook("codex", sample("codex", "Stop"), url="", key="")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.django_db(transaction=True)
def test_it_tells_the_session_when_its_key_is_refused(live_server, owner, tmp_path):
    claude = cli_chat(owner, "claude-code")
    payload = sample("claude-code", "SessionStart")

    done = run_hook("claude-code", payload, url=live_server.url, key="cak_wrong", tmp=tmp_path)

    assert warning(done) == (
        f"Crosstalk: the server at {live_server.url} refused this chat's key (401); it was"
        " replaced or revoked. Run agent_config again (or copy the config from the chat"
        " page) to write the new one. Messages from other chats will not reach this session."
    )
    assert Chat.objects.get(pk=claude.pk).session_id != payload["session_id"]


@pytest.mark.django_db(transaction=True)
def test_it_round_trips_a_session_start_through_a_live_server(live_server, owner):
    claude = cli_chat(owner, "claude-code")
    payload = sample("claude-code", "SessionStart")

    done = run_hook("claude-code", payload, url=live_server.url, key=claude.agent_key)

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["additionalContext"] == PROMPT_LINE
    assert Chat.objects.get(pk=claude.pk).session_id == payload["session_id"]


@pytest.mark.django_db(transaction=True)
def test_it_says_why_on_stderr_when_crosstalk_answers_an_error(live_server, owner, tmp_path):
    done = run_hook("gemini", "{}", url=live_server.url, key="cak_wrong", tmp=tmp_path)
    assert "401" in done.stderr and "/api/v1/agent/hooks/gemini" in done.stderr
    assert "refused this chat's key" in warning(done)


@pytest.mark.django_db(transaction=True)
def test_it_adds_the_last_assistant_message_from_the_transcript(live_server, owner, tmp_path):
    claude = cli_chat(owner, "claude-code")
    key, url = claude.agent_key, live_server.url
    run_hook("claude-code", sample("claude-code", "UserPromptSubmit"), url=url, key=key)
    transcript = tmp_path / "session.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "All done: port 8080."}],
            },
        },
        {"type": "summary", "summary": "not a message"},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    stop = sample("claude-code", "Stop", transcript_path=str(transcript))
    del stop["last_assistant_message"]

    done = run_hook("claude-code", stop, url=url, key=key)

    assert (done.returncode, done.stdout.strip()) == (0, "{}"), done.stderr
    chat = Chat.objects.get(pk=claude.pk)
    assert (chat.status, chat.last_answered) == (Chat.Status.IDLE, "All done: port 8080.")
    assert chat.turns.get().state == Turn.State.DONE
