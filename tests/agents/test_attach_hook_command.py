"""bin/crosstalk-hook: the payload on stdin, Crosstalk's answer on stdout, never a broken agent."""

import json
import shlex
import socket
import subprocess

import pytest

from agents.attach.common import hook_command
from chats.models import Chat, Turn
from peers.hooks.handling import PROMPT_LINE
from tests.peers.hooks import cli_chat, sample


def run_hook(cli: str, payload, *, url: str, key: str) -> subprocess.CompletedProcess:
    body = payload if isinstance(payload, str) else json.dumps(payload)
    env = {"CROSSTALK_URL": url, "CROSSTALK_KEY": key, "PATH": "/usr/bin:/bin"}
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


def test_it_prints_nothing_and_exits_0_when_crosstalk_is_unreachable():
    url = f"http://127.0.0.1:{free_port()}"
    done = run_hook("claude-code", sample("claude-code", "Stop"), url=url, key="cak_x")
    assert (done.returncode, done.stdout) == (0, "")
    assert "unreachable" in done.stderr and url in done.stderr


def test_it_prints_nothing_without_its_environment():
    done = run_hook("codex", sample("codex", "Stop"), url="", key="")
    assert (done.returncode, done.stdout) == (0, "")
    assert "CROSSTALK_URL and CROSSTALK_KEY" in done.stderr


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
def test_it_says_why_when_crosstalk_answers_an_error(live_server, owner):
    done = run_hook("gemini", "{}", url=live_server.url, key="cak_wrong")
    assert (done.returncode, done.stdout) == (0, "")
    assert "401" in done.stderr


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
