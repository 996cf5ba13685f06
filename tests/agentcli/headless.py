"""One headless turn of each real CLI against a FakeModel, read into the few things a
test asserts on: the final text, the session id, the raw JSON events.

    run = claude_turn(claude_cli, fake_model, cli_home, cli_workdir, "[[say hi]]",
                      "--permission-mode", "bypassPermissions")
    assert run.final == "hi"

Pass `env=` to run with an environment of your own (start from clis.claude_env…).
"""

import subprocess
from dataclasses import dataclass

from tests.agentcli.clis import claude_env, codex_env, gemini_env, json_lines, run_cli

TIMEOUT = 120


@dataclass
class Turn:
    final: str | None  # the final text the CLI reported
    session: str | None  # session / thread id, for a resume
    events: list[dict]
    process: subprocess.CompletedProcess

    def describe(self) -> str:
        return f"exit {self.process.returncode}; stderr: {self.process.stderr[-1500:]}"


def claude_turn(cli, fake, home, cwd, prompt, *args, resume=None, env=None, timeout=TIMEOUT):
    """`claude -p PROMPT --output-format stream-json --verbose [--resume ID] ARGS…`;
    `final` is the result event's text, None when there is none or it says `is_error`."""
    argv = [cli, "-p", prompt, "--output-format", "stream-json", "--verbose"]
    argv += [*(["--resume", resume] if resume else []), *args]
    done = run_cli(argv, env=env or claude_env(fake, home), cwd=cwd, timeout=timeout)
    events = json_lines(done.stdout)
    result = next((e for e in reversed(events) if e.get("type") == "result"), {})
    final = None if result.get("is_error", True) else result.get("result")
    return Turn(final, _first(events, "session_id"), events, done)


def codex_turn(cli, fake, home, cwd, prompt, *args, resume=None, env=None, timeout=TIMEOUT):
    """`codex exec [resume THREAD] --json --skip-git-repo-check ARGS… PROMPT`; `final`
    is the last agent message of a completed turn."""
    argv = [cli, "exec", *(["resume", resume] if resume else []), "--json"]
    argv += ["--skip-git-repo-check", *args, prompt]
    done = run_cli(argv, env=env or codex_env(fake, home), cwd=cwd, timeout=timeout)
    events = json_lines(done.stdout)
    said = [
        e["item"]["text"] for e in events if (e.get("item") or {}).get("type") == "agent_message"
    ]
    completed = any(e.get("type") == "turn.completed" for e in events)
    final = said[-1] if said and completed else None
    return Turn(final, _first(events, "thread_id"), events, done)


def gemini_turn(cli, fake, home, cwd, prompt, *args, resume=None, env=None, timeout=TIMEOUT):
    """`gemini -p PROMPT --output-format stream-json --yolo [--resume ID] ARGS…`;
    `final` is the assistant's text of a successful result."""
    argv = [cli, "-p", prompt, "--output-format", "stream-json", "--yolo"]
    argv += [*(["--resume", resume] if resume else []), *args]
    done = run_cli(argv, env=env or gemini_env(fake, home), cwd=cwd, timeout=timeout)
    events = json_lines(done.stdout)
    said = [
        e.get("content", "")
        for e in events
        if e.get("type") == "message" and e.get("role") == "assistant"
    ]
    result = next((e for e in reversed(events) if e.get("type") == "result"), {})
    final = "".join(said) if result.get("status") == "success" else None
    return Turn(final, _first(events, "session_id"), events, done)


def _first(events: list[dict], key: str) -> str | None:
    return next((e[key] for e in events if e.get(key)), None)
