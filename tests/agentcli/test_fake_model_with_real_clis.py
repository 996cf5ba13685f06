"""The fake model drives each real CLI: the shell step really runs, the final text is
the script's `[[say]]`, the tool result comes back to the fake, and a resume keeps
the session id."""

import random

import pytest

from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn

BYPASS = ("--permission-mode", "bypassPermissions")


@pytest.fixture
def token():
    return f"hello-{random.randrange(10**6)}"


def bash_script(token: str) -> str:
    return f"[[bash echo {token} > out.txt]]\n[[say finished]]"


def test_it_runs_claude_bash_step_and_says_the_final_text(
    claude_cli, fake_model, cli_home, cli_workdir, token
):
    run = claude_turn(claude_cli, fake_model, cli_home, cli_workdir, bash_script(token), *BYPASS)

    assert run.final == "finished", run.describe()
    assert (cli_workdir / "out.txt").read_text().strip() == token
    follow_up = fake_model.model_calls("anthropic")[-1].body["messages"]
    results = [b for m in follow_up if isinstance(m["content"], list) for b in m["content"]]
    assert any(block.get("type") == "tool_result" for block in results)


def test_it_resumes_claude_session_with_the_same_id(claude_cli, fake_model, cli_home, cli_workdir):
    first = claude_turn(claude_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    second = claude_turn(
        claude_cli, fake_model, cli_home, cli_workdir, "[[say two]]", "--resume", first.session
    )

    assert (first.final, second.final) == ("one", "two"), second.describe()
    assert second.session == first.session
    assert "[[say one]]" in str(fake_model.model_calls("anthropic")[-1].body["messages"])


def test_it_runs_codex_shell_step_and_says_the_final_text(
    codex_cli, fake_model, cli_home, cli_workdir, token
):
    run = codex_turn(codex_cli, fake_model, cli_home, cli_workdir, bash_script(token))

    assert run.final == "finished", run.describe()
    assert (cli_workdir / "out.txt").read_text().strip() == token
    follow_up = fake_model.model_calls("openai")[-1].body["input"]
    assert any(item.get("type") == "function_call_output" for item in follow_up)


def test_it_resumes_codex_thread_with_the_same_id(codex_cli, fake_model, cli_home, cli_workdir):
    first = codex_turn(codex_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    second = codex_turn(
        codex_cli, fake_model, cli_home, cli_workdir, "[[say two]]", resume=first.session
    )

    assert (first.final, second.final) == ("one", "two"), second.describe()
    assert second.session == first.session
    assert "[[say one]]" in str(fake_model.model_calls("openai")[-1].body["input"])


def test_it_runs_gemini_shell_step_and_says_the_final_text(
    gemini_cli, fake_model, cli_home, cli_workdir, token
):
    run = gemini_turn(gemini_cli, fake_model, cli_home, cli_workdir, bash_script(token))

    assert run.final == "finished", run.describe()
    assert (cli_workdir / "out.txt").read_text().strip() == token
    follow_up = fake_model.model_calls("gemini")[-1].body["contents"]
    assert any("functionResponse" in part for c in follow_up for part in c["parts"])


def test_it_resumes_gemini_session_with_the_same_id(gemini_cli, fake_model, cli_home, cli_workdir):
    first = gemini_turn(gemini_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    second = gemini_turn(
        gemini_cli, fake_model, cli_home, cli_workdir, "[[say two]]", resume=first.session
    )

    assert (first.final, second.final) == ("one", "two"), second.describe()
    assert second.session == first.session
    assert "[[say one]]" in str(fake_model.model_calls("gemini")[-1].body["contents"])
