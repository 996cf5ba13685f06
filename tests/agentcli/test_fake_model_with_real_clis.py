"""The fake model drives each real CLI: the shell step really runs, the final text is
the script's `[[say]]`, the tool result comes back to the fake, and a resume keeps
the session id."""

import random

import pytest

from tests.agentcli.clis import claude_env, codex_env, gemini_env, json_lines, run_cli

TIMEOUT = 120


def bash_script(token: str) -> str:
    return f"[[bash echo {token} > out.txt]]\n[[say finished]]"


@pytest.fixture
def token():
    return f"hello-{random.randrange(10**6)}"


def run_claude(cli, fake, home, cwd, *args):
    argv = [cli, "-p", *args, "--output-format", "stream-json", "--verbose"]
    argv += ["--permission-mode", "bypassPermissions"]
    done = run_cli(argv, env=claude_env(fake, home), cwd=cwd, timeout=TIMEOUT)
    events = json_lines(done.stdout)
    results = [e for e in events if e.get("type") == "result"]
    assert results, f"no result event; exit {done.returncode}: {done.stderr[-2000:]}"
    assert results[-1]["is_error"] is False, results[-1]
    return results[-1]


def test_it_runs_claude_bash_step_and_says_the_final_text(
    claude_cli, fake_model, cli_home, cli_workdir, token
):
    result = run_claude(claude_cli, fake_model, cli_home, cli_workdir, bash_script(token))

    assert (cli_workdir / "out.txt").read_text().strip() == token
    assert result["result"] == "finished"
    follow_up = fake_model.model_calls("anthropic")[-1].body["messages"]
    assert any(
        block.get("type") == "tool_result"
        for message in follow_up
        for block in (message["content"] if isinstance(message["content"], list) else [])
    )


def test_it_resumes_claude_session_with_the_same_id(claude_cli, fake_model, cli_home, cli_workdir):
    first = run_claude(claude_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    second = run_claude(
        claude_cli, fake_model, cli_home, cli_workdir,
        "[[say two]]", "--resume", first["session_id"],
    )  # fmt: skip

    assert (first["result"], second["result"]) == ("one", "two")
    assert second["session_id"] == first["session_id"]
    assert fake_model.saw("[[say one]]", "anthropic")
    assert "[[say one]]" in str(fake_model.model_calls("anthropic")[-1].body["messages"])


def run_codex(cli, fake, home, cwd, *args):
    argv = [cli, "exec", "--json", "--skip-git-repo-check", *args]
    done = run_cli(argv, env=codex_env(fake, home), cwd=cwd, timeout=TIMEOUT)
    events = json_lines(done.stdout)
    assert any(e.get("type") == "turn.completed" for e in events), done.stderr[-2000:]
    thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    said = [e["item"]["text"] for e in events if e.get("item", {}).get("type") == "agent_message"]
    return thread, said[-1] if said else None


def test_it_runs_codex_shell_step_and_says_the_final_text(
    codex_cli, fake_model, cli_home, cli_workdir, token
):
    _, final = run_codex(codex_cli, fake_model, cli_home, cli_workdir, bash_script(token))

    assert (cli_workdir / "out.txt").read_text().strip() == token
    assert final == "finished"
    follow_up = fake_model.model_calls("openai")[-1].body["input"]
    assert any(item.get("type") == "function_call_output" for item in follow_up)


def test_it_resumes_codex_thread_with_the_same_id(codex_cli, fake_model, cli_home, cli_workdir):
    thread, first = run_codex(codex_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    again, second = run_codex(
        codex_cli, fake_model, cli_home, cli_workdir, "resume", thread, "[[say two]]"
    )

    assert (first, second) == ("one", "two")
    assert again == thread
    assert "[[say one]]" in str(fake_model.model_calls("openai")[-1].body["input"])


def run_gemini(cli, fake, home, cwd, *args):
    argv = [cli, "-p", *args, "--output-format", "stream-json", "--yolo"]
    done = run_cli(argv, env=gemini_env(fake, home), cwd=cwd, timeout=TIMEOUT)
    events = json_lines(done.stdout)
    results = [e for e in events if e.get("type") == "result"]
    assert results and results[-1]["status"] == "success", done.stderr[-2000:]
    said = [e["content"] for e in events if e.get("type") == "message" and e["role"] == "assistant"]
    session = next(e["session_id"] for e in events if e.get("type") == "init")
    return session, "".join(said)


def test_it_runs_gemini_shell_step_and_says_the_final_text(
    gemini_cli, fake_model, cli_home, cli_workdir, token
):
    _, final = run_gemini(gemini_cli, fake_model, cli_home, cli_workdir, bash_script(token))

    assert (cli_workdir / "out.txt").read_text().strip() == token
    assert final == "finished"
    follow_up = fake_model.model_calls("gemini")[-1].body["contents"]
    assert any("functionResponse" in part for c in follow_up for part in c["parts"])


def test_it_resumes_gemini_session_with_the_same_id(gemini_cli, fake_model, cli_home, cli_workdir):
    session, first = run_gemini(gemini_cli, fake_model, cli_home, cli_workdir, "[[say one]]")
    again, second = run_gemini(
        gemini_cli, fake_model, cli_home, cli_workdir, "[[say two]]", "--resume", session
    )

    assert (first, second) == ("one", "two")
    assert again == session
    assert "[[say one]]" in str(fake_model.model_calls("gemini")[-1].body["contents"])
