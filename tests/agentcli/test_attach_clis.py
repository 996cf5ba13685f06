"""Sessions attached exactly as `agent_config --write` does, with the REAL CLIs.

A live Crosstalk (`manage.py serve`, Daphne on a free port, its own SQLite file)
and the fake model: the CLI starts in a folder holding the generated files; the
fake sends another chat's message at the moment a step runs (or as the agent
finishes), so what the CLI's next model request carried is asserted exactly."""

import json
import os
import shutil
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest

from agents.attach import attach_config, write_files
from agents.safe_files import Folder
from chats.models import Chat
from tests.agentcli.clis import claude_env, codex_env, gemini_env, run_cli
from tests.agentcli.fake_model import FakeModel
from tests.agentcli.headless import claude_turn, codex_turn, gemini_turn
from tests.browsers import CHROMIUM, chromium
from tests.e2e.attach_panel import log_in, show_key_switch_tabs_and_copy
from tests.servers import (
    Crosstalk,
    free_port,
    make_people,
    migrate,
    private_root,
    start_server,
    stop_server,
)

PASSWORD = "alice-password-1"  # noqa: S105
PEOPLE = 30  # more than the module has tests


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One live server for the module (booting one per test cost seconds each)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    db = tmp_path_factory.mktemp("attach") / "db.sqlite3"
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db}")
    env |= {"DEMO_STEP_SECONDS": "0", "CROSSTALK_URL": url}
    env.pop("REDIS_URL", None)
    migrate(env)
    # A person for each test, made at once: no test sees another's chats, messages or limits.
    people = make_people(env, [f"person-{uuid.uuid4().hex[:8]}" for _ in range(PEOPLE)], PASSWORD)
    server, _ = start_server(env, port=port)
    try:
        yield url, env, list(people.items())
    finally:
        stop_server(server)


@pytest.fixture
def crosstalk(served):
    """The module's server, as a person of this test's own."""
    url, env, people = served
    assert people, "more tests than PEOPLE: raise it"
    user, token = people.pop()
    return Crosstalk(url, env, token, user)


@pytest.fixture
def sender(crosstalk):
    """Another chat of the person (a demo agent) that ran once, so it can be answered."""
    chat = crosstalk.new_chat("checkout", "demo")
    crosstalk.call("POST", f"/api/v1/chats/{chat['id']}/prompts", {"text": "hello"})
    crosstalk.wait_for(lambda: crosstalk.chat(chat["id"])["last_ran_at"], "checkout to run")
    return chat


def has_mcp(crosstalk) -> bool:
    request = urllib.request.Request(crosstalk.url + "/mcp", method="POST", data=b"{}")  # noqa: S310
    try:
        urllib.request.urlopen(request, timeout=10)  # noqa: S310
    except urllib.error.HTTPError as error:
        return error.code != 404
    return True


class Messenger(FakeModel):
    """The fake model, which also sends a peer message when a request matches."""

    def __init__(self):
        super().__init__()
        self.triggers: list = []  # [(predicate(request), send())], each fired once

    def record(self, request) -> None:
        super().record(request)
        body = json.dumps(request.body or {})
        for trigger in list(self.triggers):
            when, action = trigger
            if request.body and request.body.get("tools") is not None and when(body):
                self.triggers.remove(trigger)
                action()


@pytest.fixture
def messenger():
    with Messenger() as fake:
        yield fake


def step_until(gate: Path) -> str:
    """A shell step that runs until `gate` exists: the test opens it once its message is
    sent, so the message comes in while the step runs, with no fixed window."""
    return f"[[bash until [ -e {gate} ]; do sleep 0.05; done; printf 'SLEPT-%s' 2]]"


def then_open(gate: Path, action):
    """`action`, then open the gate its step waits on."""

    def run():
        action()
        gate.touch()

    return run


def block_of(message: dict) -> str:
    return f'<peer-message id="{message["id"]}"'


# Claude Code ------------------------------------------------------------------


def test_it_takes_messages_between_steps_and_as_finished_in_claude(
    claude_cli, messenger, crosstalk, sender, cli_home, cli_workdir, tmp_path
):
    attached = crosstalk.new_chat("api-claude", "claude-code")
    crosstalk.agent_config("api-claude", "claude-code", cli_workdir, cli_home)
    sent = {}

    def send(name, text):
        return lambda: sent.setdefault(
            name, crosstalk.send(sender["agent_key"], attached["id"], text)
        )

    # While the shell step runs (the first model call has just answered with it).
    gate = tmp_path / "sent"
    on_step = then_open(gate, send("step", "MSG-STEP"))
    messenger.triggers.append((lambda body: "SLEPT-2" not in body, on_step))
    # As it is about to finish: the call after the shell step's result.
    answer = "[[say It listens on 8080.]]"
    messenger.triggers.append((lambda body: "SLEPT-2" in body, send("stop", f"MSG-STOP {answer}")))

    prompt = f"{step_until(gate)}\n[[say first part done]]"
    run = claude_turn(
        claude_cli,
        messenger,
        cli_home,
        cli_workdir,
        prompt,
        "--permission-mode",
        "bypassPermissions",
    )

    assert run.final == "It listens on 8080.", run.describe()
    step, stop_message = (
        crosstalk.message(sent["step"]["id"]),
        crosstalk.message(sent["stop"]["id"]),
    )
    assert (step["state"], step.get("path", step["detail"])) == ("delivered", "between_steps")
    assert stop_message.get("path", stop_message["detail"]) == "as_finished"
    calls = messenger.model_calls("anthropic")
    after_step = json.dumps(calls[1].body)
    assert "SLEPT-2" in after_step and block_of(step).replace('"', '\\"') in after_step
    assert "Stop hook feedback" in json.dumps(calls[-1].body)
    chat = crosstalk.chat(attached["id"])
    assert (chat["status"], chat["last_answered"]) == ("idle", "It listens on 8080.")
    assert chat["last_asked"] == prompt
    assert messenger.saw("ListChats shows who is reachable")  # the SessionStart prompt line
    answer_id = crosstalk.message(sent["stop"]["id"])["answer"]
    assert crosstalk.message(answer_id)["text"] == "It listens on 8080."
    assert crosstalk.message(answer_id)["to_chat"] == sender["id"]


def message_chat(crosstalk, to: dict, text: str) -> str:
    """A prompt that sends `text` to `to` with MessageChat. `to` is stopped first: its
    answer would otherwise race the end of the turn (and, rightly, keep it going)."""
    crosstalk.call("POST", f"/api/v1/chats/{to['id']}/stop")
    args = json.dumps({"to": to["id"], "text": text, "waitSeconds": 0})
    return f"[[call MessageChat {args}]]\n[[say sent it]]"


def sent_texts(crosstalk, chat_id: str) -> list[str]:
    items = crosstalk.call("GET", f"/api/v1/messages?chat={chat_id}")["items"]
    return [m["text"] for m in items if m["from_chat"] == chat_id]


def test_it_connects_claude_to_the_crosstalk_mcp_server(
    claude_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    if not has_mcp(crosstalk):
        pytest.skip("no MCP server at /mcp on this branch yet (branch h-mcp)")
    attached = crosstalk.new_chat("api-claude", "claude-code")
    crosstalk.agent_config("api-claude", "claude-code", cli_workdir, cli_home)

    run = claude_turn(
        claude_cli, messenger, cli_home, cli_workdir, message_chat(crosstalk, sender, "MCP-HELLO")
    )

    init = next(e for e in run.events if e.get("subtype") == "init")
    servers = {s["name"]: s["status"] for s in init["mcp_servers"]}
    assert servers.get("crosstalk") == "connected", run.describe()
    assert run.final == "sent it", run.describe()
    assert sent_texts(crosstalk, attached["id"]) == ["MCP-HELLO"]


# Codex and Gemini ---------------------------------------------------------------


def env_file(path: Path) -> dict:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def run_codex(cli, fake, crosstalk, key, home, workdir, prompt):
    """Codex as the person starts it in the folder (the one-liner: the env file, the
    profile in their own CODEX_HOME), on the fake provider."""
    env = codex_env(fake, home) | env_file(workdir / ".crosstalk" / "env")
    assert env["CROSSTALK_KEY"] == key
    provider = (
        f'{{name="fake", base_url="{fake.url}/v1", wire_api="responses", '
        'env_key="CROSSTALK_FAKE_OPENAI_KEY", request_max_retries=1, stream_max_retries=1}'
    )
    flags = ["-c", f"model_providers.fake={provider}", "-c", 'model_provider="fake"']
    flags += ["-c", 'model="gpt-fake"', "-c", 'approval_policy="never"']
    flags += ["-c", 'sandbox_mode="danger-full-access"', "-c", "features.plugins=false"]
    flags += ["--profile", "crosstalk", "--dangerously-bypass-hook-trust"]
    return codex_turn(cli, fake, home, workdir, prompt, *flags, env=env)


def run_gemini(cli, fake, crosstalk, key, home, workdir, prompt):
    """Gemini as the person starts it in the folder (the one-liner: the env file)."""
    env = gemini_env(fake, home) | env_file(workdir / ".crosstalk" / "env")
    assert env["CROSSTALK_KEY"] == key
    return gemini_turn(cli, fake, home, workdir, prompt, env=env)


RUNS = {"codex": (run_codex, "openai"), "gemini": (run_gemini, "gemini")}


@pytest.fixture(params=["codex", "gemini"])
def other_cli(request):
    fixture = {"codex": "codex_cli", "gemini": "gemini_cli"}[request.param]
    return request.param, request.getfixturevalue(fixture)


def test_it_takes_a_message_between_steps_in_codex_and_gemini(
    other_cli, messenger, crosstalk, sender, cli_home, cli_workdir, tmp_path
):
    agent, cli = other_cli
    run_cli, api = RUNS[agent]
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    key = crosstalk.agent_config(attached["name"], agent, cli_workdir, cli_home)
    sent = {}

    def send():
        sent["step"] = crosstalk.send(sender["agent_key"], attached["id"], "MSG-STEP")

    gate = tmp_path / "sent"
    messenger.triggers.append((lambda body: "SLEPT-2" not in body, then_open(gate, send)))
    prompt = f"{step_until(gate)}\n[[say all done]]"

    run = run_cli(cli, messenger, crosstalk, key, cli_home, cli_workdir, prompt)

    assert run.final == "all done", run.describe()
    step = crosstalk.message(sent["step"]["id"])
    assert (step["state"], step.get("path", step["detail"])) == ("delivered", "between_steps")
    bodies = [json.dumps(call.body) for call in messenger.model_calls(api)]
    later = [body for body in bodies if "SLEPT-2" in body]
    # The next model request carried the block (Gemini escapes hook context's < and >).
    assert later and "peer-message id=" in later[0] and step["id"] in later[0]
    chat = crosstalk.chat(attached["id"])
    assert (chat["status"], chat["last_answered"]) == ("idle", "all done")


def test_it_keeps_codex_and_gemini_going_with_a_message_as_they_finish(
    other_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    agent, cli = other_cli
    run_cli, api = RUNS[agent]
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    key = crosstalk.agent_config(attached["name"], agent, cli_workdir, cli_home)
    sent = {}

    def send():
        text = "MSG-STOP [[say It listens on 8080.]]"
        sent["stop"] = crosstalk.send(sender["agent_key"], attached["id"], text)

    # The model call after the step's result: its answer is the last; then Stop.
    messenger.triggers.append((lambda body: "SLEPT-2" in body, send))
    prompt = "[[bash printf 'SLEPT-%s' 2]]\n[[say first part done]]"

    run = run_cli(cli, messenger, crosstalk, key, cli_home, cli_workdir, prompt)

    assert run.final and run.final.endswith("It listens on 8080."), run.describe()
    message = crosstalk.message(sent["stop"]["id"])
    assert (message["state"], message.get("path", message["detail"])) == (
        "delivered",
        "as_finished",
    )
    chat = crosstalk.chat(attached["id"])
    assert chat["status"] == "idle" and chat["last_asked"] == prompt
    assert chat["last_answered"].endswith("It listens on 8080.")
    answer = crosstalk.message(message["answer"])
    assert answer["to_chat"] == sender["id"] and answer["text"].endswith("It listens on 8080.")


def test_it_connects_codex_and_gemini_to_the_crosstalk_mcp_server(
    other_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    if not has_mcp(crosstalk):
        pytest.skip("no MCP server at /mcp on this branch yet (branch h-mcp)")
    agent, cli = other_cli
    run_cli, api = RUNS[agent]
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    key = crosstalk.agent_config(attached["name"], agent, cli_workdir, cli_home)

    prompt = message_chat(crosstalk, sender, "MCP-HI")
    run = run_cli(cli, messenger, crosstalk, key, cli_home, cli_workdir, prompt)

    assert run.final == "sent it", run.describe()
    assert messenger.saw("MessageChat", api)  # the tool was offered: the server connected
    assert sent_texts(crosstalk, attached["id"]) == ["MCP-HI"]


# Hosted: attach_config(hosted=True), as the runner uses it --------------------------
# The files go in a folder of their own (never the chat's); the flags and environment
# load them, and a message sent while a step runs reaches the next model request.

CODEX_FLAGS = [
    "-c", 'model_provider="fake"', "-c", 'model="gpt-fake"', "-c", 'approval_policy="never"',
    "-c", 'sandbox_mode="danger-full-access"', "-c", "features.plugins=false",
]  # fmt: skip


@pytest.fixture
def config_dir():
    """Like the runner's, under var/: Gemini skips a settings file below a folder others
    may write to (such as /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="test-hosted-", dir=private_root()))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def hosted(agent: str, key: str, url: str, folder):
    config = attach_config(Chat(peers=True), agent, key=key, base_url=url, hosted=True,
                           config_dir=folder)  # fmt: skip
    with Folder.open_root(folder) as opened:
        write_files(config, opened)
    return config


def run_hosted_claude(cli, fake, config, folder, home, workdir, prompt):
    env = claude_env(fake, home) | config.env
    flags = [*config.argv_extra, "--permission-mode", "bypassPermissions"]
    return claude_turn(cli, fake, home, workdir, prompt, *flags, env=env)


def run_hosted_codex(cli, fake, config, folder, home, workdir, prompt):
    provider = (
        f'{{name="fake", base_url="{fake.url}/v1", wire_api="responses", '
        'env_key="CROSSTALK_FAKE_OPENAI_KEY", request_max_retries=1, stream_max_retries=1}'
    )
    flags = ["-c", f"model_providers.fake={provider}", *CODEX_FLAGS, *config.argv_extra]
    env = codex_env(fake, home) | config.env | {"CODEX_HOME": str(folder)}
    return codex_turn(cli, fake, home, workdir, prompt, *flags, env=env)


def run_hosted_gemini(cli, fake, config, folder, home, workdir, prompt):
    env = gemini_env(fake, home) | config.env
    return gemini_turn(cli, fake, home, workdir, prompt, *config.argv_extra, env=env)


HOSTED_RUNS = {
    "claude-code": ("claude_cli", run_hosted_claude, "anthropic"),
    "codex": ("codex_cli", run_hosted_codex, "openai"),
    "gemini": ("gemini_cli", run_hosted_gemini, "gemini"),
}


@pytest.fixture(params=list(HOSTED_RUNS))
def hosted_cli(request):
    fixture, run, api = HOSTED_RUNS[request.param]
    return request.param, request.getfixturevalue(fixture), run, api


def test_it_configures_a_hosted_turn_that_takes_a_message_between_steps(
    hosted_cli, messenger, crosstalk, sender, cli_home, cli_workdir, config_dir, tmp_path
):
    agent, cli, run, api = hosted_cli
    chat = crosstalk.new_chat(f"hosted-{agent}", agent)
    config = hosted(agent, chat["agent_key"], crosstalk.url, config_dir)
    sent = {}

    def send():
        sent["step"] = crosstalk.send(sender["agent_key"], chat["id"], "MSG-HOSTED")

    gate = tmp_path / "sent"  # not in the chat's folder, which must stay empty
    messenger.triggers.append((lambda body: "SLEPT-2" not in body, then_open(gate, send)))
    step = f"{step_until(gate)}\n[[say all done]]"

    result = run(cli, messenger, config, config_dir, cli_home, cli_workdir, step)

    assert result.final == "all done", result.describe()
    assert list(cli_workdir.iterdir()) == []  # nothing written into the chat's folder
    step = crosstalk.message(sent["step"]["id"])
    assert step.get("path", step["detail"]) == "between_steps"
    later = [json.dumps(c.body) for c in messenger.model_calls(api)]
    assert any("SLEPT-2" in body and step["id"] in body for body in later)


def test_it_connects_a_hosted_turn_to_the_crosstalk_mcp_server(
    hosted_cli, messenger, crosstalk, sender, cli_home, cli_workdir, config_dir
):
    if not has_mcp(crosstalk):
        pytest.skip("no MCP server at /mcp on this branch yet (branch h-mcp)")
    agent, cli, run, api = hosted_cli
    chat = crosstalk.new_chat(f"hosted-{agent}", agent)
    config = hosted(agent, chat["agent_key"], crosstalk.url, config_dir)

    prompt = message_chat(crosstalk, sender, "HI")
    result = run(cli, messenger, config, config_dir, cli_home, cli_workdir, prompt)

    assert result.final == "sent it", result.describe()
    assert sent_texts(crosstalk, chat["id"]) == ["HI"]


def run_claude(cli, fake, crosstalk, key, home, workdir, prompt):
    return claude_turn(cli, fake, home, workdir, prompt)


# What a person copies from the panel, and hooks that cannot reach Crosstalk ----------------


def test_it_the_claude_config_copied_from_the_panel_joins_a_real_session(
    claude_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    """Show a new key, switch tabs, copy Claude's `claude mcp add` line and settings file
    in a real browser; run the line, save the file, start Claude Code in the folder."""
    pytest.importorskip("playwright.sync_api", reason="needs Playwright")
    if not CHROMIUM.exists():
        pytest.skip(f"needs Chromium at {CHROMIUM}")
    attached = crosstalk.new_chat("api-claude", "claude-code")
    with chromium() as browser:
        context = browser.new_context(base_url=crosstalk.url)
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        context.set_default_timeout(10_000)
        page = context.new_page()
        log_in(page, crosstalk.user, PASSWORD)
        copied = show_key_switch_tabs_and_copy(page, attached["id"])
    settings = cli_workdir / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(copied.settings)
    env = claude_env(messenger, cli_home)
    env["PATH"] = f"{Path(claude_cli).parent}:{env['PATH']}"
    added = run_cli(["bash", "-c", copied.command], env=env, cwd=cli_workdir, timeout=120)
    assert added.returncode == 0, added.stderr

    prompt = message_chat(crosstalk, sender, "FROM-THE-PANEL")
    run = claude_turn(claude_cli, messenger, cli_home, cli_workdir, prompt)

    init = next(e for e in run.events if e.get("subtype") == "init")
    assert {s["name"]: s["status"] for s in init["mcp_servers"]}["crosstalk"] == "connected"
    assert run.final == "sent it", run.describe()
    assert sent_texts(crosstalk, attached["id"]) == ["FROM-THE-PANEL"]
    chat = crosstalk.chat(attached["id"])  # the hooks ran: the session's prompt and answer
    assert (chat["last_asked"], chat["last_answered"]) == (prompt, "sent it")


def run_unreachable(agent, cli, fake, crosstalk, home, workdir):
    dead = f"http://127.0.0.1:{free_port()}"
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    key = crosstalk.agent_config(attached["name"], agent, workdir, home, "--url", dead)
    if agent == "claude-code":
        return claude_turn(cli, fake, home, workdir, "[[say hello]]")
    return RUNS[agent][0](cli, fake, crosstalk, key, home, workdir, "[[say hello]]")


@pytest.fixture(params=["claude-code", "codex", "gemini"])
def any_cli(request):
    fixture = {"claude-code": "claude_cli", "codex": "codex_cli", "gemini": "gemini_cli"}
    return request.param, request.getfixturevalue(fixture[request.param])


def test_it_the_first_prompt_of_an_idle_attached_session_carries_what_waits(
    any_cli, messenger, crosstalk, sender, cli_home, cli_workdir
):
    agent, cli = any_cli
    run_cli, api = {"claude-code": (run_claude, "anthropic"), **RUNS}[agent]
    attached = crosstalk.new_chat(f"api-{agent}", agent)
    key = crosstalk.agent_config(attached["name"], agent, cli_workdir, cli_home)
    first = run_cli(cli, messenger, crosstalk, key, cli_home, cli_workdir, "[[say one]]")
    assert first.final == "one", first.describe()  # it ran: now reachable, and idle

    waiting = crosstalk.send(sender["agent_key"], attached["id"], "MSG-WAITING")
    assert crosstalk.message(waiting["id"])["reason"] == "for_its_session"
    calls_before = len(messenger.model_calls(api))

    second = run_cli(cli, messenger, crosstalk, key, cli_home, cli_workdir, "[[say two]]")

    assert second.final == "two", second.describe()
    message = crosstalk.message(waiting["id"])
    assert (message["state"], message["path"]) == ("delivered", "turn_prompt")
    # Its very first model request carried the block (Gemini escapes < and > again).
    request = json.dumps(messenger.model_calls(api)[calls_before].body)
    assert "peer-message id=" in request and waiting["id"] in request and "MSG-WAITING" in request


WARNING = "Crosstalk: cannot reach the server at http://127.0.0.1:"


def test_it_a_session_whose_hooks_cannot_reach_crosstalk_is_told_once(
    any_cli, messenger, crosstalk, cli_home, cli_workdir
):
    agent, cli = any_cli
    run = run_unreachable(agent, cli, messenger, crosstalk, cli_home, cli_workdir)

    assert run.final == "hello", run.describe()  # the agent is never blocked
    told = Path(tempfile.gettempdir()) / f"crosstalk-hook-{os.getuid()}"
    assert (told / run.session).exists()  # its hooks ran, and told this session
    shown = run.process.stdout + run.process.stderr
    if agent == "codex":
        # `codex exec` shows no hook output at all (neither systemMessage nor stderr,
        # checked); it takes the answer without a complaint. Its TUI shows it.
        return
    assert WARNING in shown, run.describe()
    if agent == "claude-code":  # the hooks' output, in the stream: one warning, not four
        outputs = [e for e in run.events if e.get("subtype") == "hook_response"]
        assert sum(WARNING in json.dumps(e) for e in outputs) == 1, outputs
