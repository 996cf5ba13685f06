"""The fake model drives each real CLI: the shell step really runs, the final text is
the script's `[[say]]`, the tool result comes back to the fake, and a resume keeps
the session id."""

import random
from dataclasses import dataclass

import pytest

from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn

pytestmark = pytest.mark.agent_cli


@dataclass(frozen=True)
class Cli:
    turn: object  # the headless.*_turn function
    api: str
    history: str  # the body key holding the conversation
    args: tuple = ()

    def tool_results(self, body: dict) -> list:
        if self.api == "anthropic":
            blocks = [b for m in body["messages"] if isinstance(m["content"], list)
                      for b in m["content"]]  # fmt: skip
            return [b for b in blocks if b.get("type") == "tool_result"]
        if self.api == "openai":
            return [i for i in body["input"] if i.get("type") == "function_call_output"]
        return [p for c in body["contents"] for p in c["parts"] if "functionResponse" in p]


CLIS = {
    "claude": Cli(claude_turn, "anthropic", "messages", ("--permission-mode", "bypassPermissions")),
    "codex": Cli(codex_turn, "openai", "input"),
    "gemini": Cli(gemini_turn, "gemini", "contents"),
}


@pytest.fixture(params=sorted(CLIS))
def cli(request):
    """(binary, Cli) for each of the three; skips the ones that are unavailable."""
    return request.getfixturevalue(f"{request.param}_cli"), CLIS[request.param]


def test_it_runs_the_shell_step_and_says_the_final_text(cli, fake_model, cli_home, cli_workdir):
    binary, spec = cli
    token = f"hello-{random.randrange(10**6)}"
    script = f"[[bash echo {token} > out.txt]]\n[[say finished]]"

    run = spec.turn(binary, fake_model, cli_home, cli_workdir, script, *spec.args)

    assert run.final == "finished", run.describe()
    assert (cli_workdir / "out.txt").read_text().strip() == token
    calls = fake_model.model_calls(spec.api)
    assert [spec.tool_results(call.body) != [] for call in calls] == [False, True]


def test_it_resumes_the_session_with_the_same_id(cli, fake_model, cli_home, cli_workdir):
    binary, spec = cli
    first = spec.turn(binary, fake_model, cli_home, cli_workdir, "[[say one]]", *spec.args)
    second = spec.turn(
        binary, fake_model, cli_home, cli_workdir, "[[say two]]", *spec.args,
        resume=first.session,
    )  # fmt: skip

    assert (first.final, second.final) == ("one", "two"), second.describe()
    assert second.session == first.session
    assert "[[say one]]" in str(fake_model.model_calls(spec.api)[-1].body[spec.history])
