"""The Codex and Gemini hooks endpoints, with the payloads the real CLIs sent."""

import pytest

from agents.hooks.handling import PROMPT_LINE
from chats.models import Chat, Turn
from peers.models import PeerMessage
from tests.peers.conftest import reachable
from tests.peers.hooks import cli_chat, hook, path_of, sample, send

State = PeerMessage.State
# (cli, its prompt event, after-step event, finishing event, shape of a block)
CLIS = [
    ("codex", "UserPromptSubmit", "PostToolUse", "Stop", "block"),
    ("gemini", "BeforeAgent", "AfterTool", "AfterAgent", "deny"),
]


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


@pytest.mark.parametrize(("cli", "prompt", "step", "finish", "decision"), CLIS)
def test_it_runs_a_whole_attached_session(owner, sender, cli, prompt, step, finish, decision):
    agent = cli_chat(owner, cli)
    start = hook(agent, cli, sample(cli, "SessionStart")).json()
    assert start["hookSpecificOutput"]["additionalContext"] == PROMPT_LINE
    assert hook(agent, cli, sample(cli, prompt)).json() == {}
    agent.refresh_from_db()
    assert agent.status == Chat.Status.RUNNING
    assert agent.session_id == sample(cli, "SessionStart")["session_id"]

    first = send(sender, agent, "first")
    after_step = hook(agent, cli, sample(cli, step)).json()["hookSpecificOutput"]
    assert after_step["hookEventName"] == step
    assert f'id="{first.pk}"' in after_step["additionalContext"]
    assert path_of(first) == "between_steps"

    second = send(sender, agent, "second")
    blocked = hook(agent, cli, sample(cli, finish)).json()
    assert blocked["decision"] == decision and f'id="{second.pk}"' in blocked["reason"]
    assert path_of(second) == "as_finished"

    assert hook(agent, cli, sample(cli, finish, 1)).json() == {}
    agent.refresh_from_db()
    assert agent.status == Chat.Status.IDLE
    assert agent.last_answered  # the final text of the CLI's payload


def test_it_takes_gemini_final_text_from_prompt_response(owner, sender):
    agent = cli_chat(owner, "gemini")
    hook(agent, "gemini", sample("gemini", "BeforeAgent", prompt="what port?"))
    message = send(sender, agent, "which port?")
    hook(agent, "gemini", sample("gemini", "AfterTool"))

    payload = sample("gemini", "AfterAgent", prompt_response="Port 9000.")
    hook(agent, "gemini", payload)

    message.refresh_from_db()
    assert PeerMessage.objects.get(pk=message.answer_id).text == "Port 9000."
    agent.refresh_from_db()
    assert agent.last_answered == "Port 9000."


def test_it_does_not_take_a_gemini_retry_prompt_for_the_person_writing(owner, sender):
    agent = cli_chat(owner, "gemini")
    hook(agent, "gemini", sample("gemini", "BeforeAgent", prompt="start"))
    send(sender, agent)
    reason = hook(agent, "gemini", sample("gemini", "AfterAgent")).json()["reason"]

    # Gemini sends the AfterAgent reason back as a new prompt.
    hook(agent, "gemini", sample("gemini", "BeforeAgent", prompt=reason))

    agent.refresh_from_db()
    assert agent.last_asked == "start"
    assert agent.turns.filter(state=Turn.State.RUNNING).count() == 1


def test_it_answers_codex_pre_tool_use_with_empty_json(owner):
    agent = cli_chat(owner, "codex")
    assert hook(agent, "codex", sample("codex", "PreToolUse")).json() == {}


def test_it_ends_an_open_gemini_turn_at_session_end(owner):
    agent = cli_chat(owner, "gemini")
    hook(agent, "gemini", sample("gemini", "BeforeAgent"))
    hook(agent, "gemini", sample("gemini", "SessionEnd"))
    agent.refresh_from_db()
    assert agent.status == Chat.Status.IDLE
    assert agent.turns.get().state == Turn.State.DONE


def test_it_keeps_gemini_session_start_context_out_of_last_asked(owner):
    agent = cli_chat(owner, "gemini")
    payload = sample("gemini", "BeforeAgent")
    assert payload["prompt"].startswith("<hook_context>")
    hook(agent, "gemini", payload)
    agent.refresh_from_db()
    assert agent.last_asked == 'hooks [[call echo {"text":"gh"}]]'
