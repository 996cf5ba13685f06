"""Directives that arrive through hooks are followed, as a peer message delivered
between steps or at a stop would be: a PostToolUse / AfterTool context adds a step,
a Stop / AfterAgent block's reason gives the new final text."""

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.agentcli.clis import codex_env, gemini_env
from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn

HOOK = [sys.executable, str(Path(__file__).with_name("scripted_hook.py"))]
PROMPT = "[[bash echo one > one.txt]]\n[[say first]]"


@pytest.fixture
def hook(tmp_path):
    """`hook(kind, text)`: one command-hook entry running scripted_hook.py."""

    def entry(kind: str, text: str) -> dict:
        command = shlex.join([*HOOK, kind, text, str(tmp_path / "hooks.log")])
        return {"hooks": [{"type": "command", "command": command}]}

    return entry


def after_tool_and_stop(hook, after_tool: str, stop: str) -> dict:
    return {
        after_tool: [{"matcher": "*"} | hook("context", "[[bash echo two > two.txt]]")],
        stop: [hook("block", "[[say after-stop]]")],
    }


def assert_both_steps_and_stop(fake, api, workdir):
    assert (workdir / "one.txt").exists() and (workdir / "two.txt").exists()
    answers = [call.answer.text or call.answer.tool for call in fake.model_calls(api)]
    assert answers[-2:] == ["done", "after-stop"]  # the context script had no [[say]]


def test_it_follows_claude_hook_context_and_stop_feedback(
    claude_cli, fake_model, cli_home, cli_workdir, tmp_path, hook
):
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": after_tool_and_stop(hook, "PostToolUse", "Stop")}))

    run = claude_turn(
        claude_cli, fake_model, cli_home, cli_workdir, PROMPT,
        "--settings", settings, "--permission-mode", "bypassPermissions",
    )  # fmt: skip

    assert run.final == "after-stop", run.describe()
    assert_both_steps_and_stop(fake_model, "anthropic", cli_workdir)


def test_it_follows_codex_hook_context_and_stop_block(
    codex_cli, fake_model, cli_home, cli_workdir, hook
):
    env = codex_env(fake_model, cli_home)
    hooks = {"hooks": after_tool_and_stop(hook, "PostToolUse", "Stop")}
    (Path(env["CODEX_HOME"]) / "hooks.json").write_text(json.dumps(hooks))

    run = codex_turn(
        codex_cli, fake_model, cli_home, cli_workdir, PROMPT,
        "--dangerously-bypass-hook-trust", env=env,
    )  # fmt: skip

    assert run.final == "after-stop", run.describe()
    assert_both_steps_and_stop(fake_model, "openai", cli_workdir)


def test_it_follows_gemini_after_tool_context_and_after_agent_block(
    gemini_cli, fake_model, cli_home, cli_workdir, hook
):
    hooks = {"hooks": after_tool_and_stop(hook, "AfterTool", "AfterAgent")}
    env = gemini_env(fake_model, cli_home, settings=hooks)

    run = gemini_turn(gemini_cli, fake_model, cli_home, cli_workdir, PROMPT, env=env)

    # Gemini's stream-json runs the text after the block on from the first answer.
    assert run.final == "doneafter-stop", run.describe()
    assert_both_steps_and_stop(fake_model, "gemini", cli_workdir)
