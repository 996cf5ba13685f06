"""Each CLI adapter end to end through the runner, with a stand-in program that
records how it was started and replays a captured event stream of the real CLI."""

import json
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from chats.models import Entry, Turn
from chats.selectors import chat_for_agent_key
from peers import actions
from peers.models import PeerMessage
from tests.agents.conftest import fresh, prompt, run_all, texts
from tests.conftest import make_chat, own_folder

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLES = Path(__file__).parent / "samples"
STREAMS = {
    "claude-code": (
        "claude-2.1.197-stream-json-turn1.jsonl",
        "claude-2.1.197-stream-json-turn2-resume.jsonl",
    ),
    "codex": ("codex-exec-json.jsonl", "codex-exec-resume-json.jsonl"),
    "gemini": ("gemini-stream-json.jsonl", "gemini-stream-json-resume.jsonl"),
}
BINS = {"claude-code": "CLAUDE_BIN", "codex": "CODEX_BIN", "gemini": "GEMINI_BIN"}
SESSIONS = {
    "claude-code": "03c941c9-bd64-4823-9b67-1a06a7b5fded",
    "codex": "01a230ce-0a99-7953-9b80-5fcf80deb7d3",
    "gemini": "cd5cce78-2ff9-45c9-a97c-d59a6fa754a8",
}

STAND_IN = """\
#!{python}
import json, os, sys
record = {{"argv": sys.argv[1:], "cwd": os.getcwd(), "stdin": sys.stdin.read(),
          "env": {{k: v for k, v in os.environ.items() if k.startswith(("CROSSTALK", "CODEX",
                                                                         "GEMINI", "IS_"))}},
          "names": sorted(os.environ)}}
with open({log!r}, "a") as log:
    log.write(json.dumps(record) + "\\n")
resumed = any(arg == "resume" or arg.startswith("--resume=") for arg in sys.argv)
with open({second!r} if resumed else {first!r}) as stream:
    sys.stdout.write(stream.read())
sys.exit(int(os.environ.get("STAND_IN_EXIT", "0")))
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """stand_in(kind) → (log of runs); the kind's *_BIN now names a replaying program."""

    def install(kind: str, streams=None) -> Path:
        first, second = streams or STREAMS[kind]
        log = tmp_path / f"{kind}-runs.jsonl"
        program = tmp_path / f"{kind}-stand-in"
        program.write_text(
            STAND_IN.format(
                python=sys.executable,
                log=str(log),
                first=str(SAMPLES / first),
                second=str(SAMPLES / second),
            )
        )
        program.chmod(program.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv(BINS[kind], str(program))
        return log

    return install


def runs(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@sync_to_async
def turns_of(chat) -> list[Turn]:
    return list(chat.turns.order_by("requested_at", "id"))


@sync_to_async
def entries_of(chat) -> list[tuple[str, str]]:
    return [(e.kind, e.text.splitlines()[0]) for e in chat.entries.order_by("created_at", "id")]


def hosted_chat(owner, kind: str, folder: Path, **fields):
    folder.mkdir(exist_ok=True)
    return make_chat(owner, f"{kind}-chat", agent=kind, folder=str(folder), peers=True, **fields)


@pytest.mark.parametrize("kind", ["claude-code", "codex", "gemini"])
async def test_it_runs_a_turn_in_the_folder_and_resumes_its_session(
    kind, owner, tmp_path, stand_in, settings
):
    log = stand_in(kind)
    folder = own_folder(owner, "repo")
    chat = await sync_to_async(hosted_chat)(owner, kind, folder)
    await prompt(chat, "first")
    await run_all()
    await prompt(chat, "second")
    await run_all()

    first, second = runs(log)
    assert first["cwd"] == second["cwd"] == str(folder)
    assert list(folder.iterdir()) == []  # nothing written into the person's repository
    assert (await fresh(chat)).session_id == SESSIONS[kind]
    assert not any(SESSIONS[kind] in arg for arg in first["argv"])
    assert any(SESSIONS[kind] in arg for arg in second["argv"])
    # The prompt reaches the CLI on stdin, never on its command line.
    assert (first["stdin"], second["stdin"]) == ("first", "second")
    assert not any("first" in arg or "second" in arg for arg in first["argv"] + second["argv"])
    turn_one, turn_two = await turns_of(chat)
    assert (turn_one.state, turn_two.state) == ("done", "done")
    assert turn_one.exit_code == 0 and turn_one.duration_seconds > 0
    assert first["env"]["CROSSTALK_URL"] == settings.CROSSTALK_URL
    # The key handed to the CLI is the turn's, and it stops working when the turn ends.
    key = first["env"]["CROSSTALK_KEY"]
    assert key.startswith("cak_") and key != chat.agent_key
    assert await sync_to_async(chat_for_agent_key)(key) is None
    assert await sync_to_async(chat_for_agent_key)(chat.agent_key) is not None


async def test_it_shows_claudes_steps_and_its_final_text(owner, tmp_path, stand_in):
    log = stand_in("claude-code")
    chat = await sync_to_async(hosted_chat)(
        owner, "claude-code", own_folder(owner, "repo"), model="opus", permission_mode="acceptEdits"
    )
    await prompt(chat, "do it")
    await run_all()

    (run,) = runs(log)
    argv = run["argv"]
    assert argv[0] == "-p" and "do it" not in argv and run["stdin"] == "do it"
    assert argv[argv.index("--output-format") + 1] == "stream-json" and "--verbose" in argv
    assert "--model=opus" in argv and "--permission-mode=acceptEdits" in argv
    mcp_config = Path(argv[argv.index("--mcp-config") + 1])
    assert stat.S_IMODE(mcp_config.stat().st_mode) == 0o600
    assert "mcp__crosstalk__MessageChat" in argv[argv.index("--allowedTools") + 1]
    final = 'FAKE-FINAL after 2 tool call(s). Tool outputs: hi | {"result":"ECHO: hello mcp"}'
    kinds = await entries_of(chat)
    assert kinds[:3] == [
        ("prompt", "do it"),
        ("tool", "Bash · echo hi"),
        ("tool", "mcp__crosstalk__echo · hello mcp"),
    ]
    assert kinds[-1] == ("answer", final)
    (turn,) = await turns_of(chat)
    assert turn.final_text == final and turn.cost_usd == pytest.approx(0.0007)
    assert (await fresh(chat)).last_answered == final


async def test_it_runs_codex_headless_in_a_home_of_the_chats_own(owner, tmp_path, stand_in):
    log = stand_in("codex")
    chat = await sync_to_async(hosted_chat)(
        owner, "codex", own_folder(owner, "repo"), model="gpt-x"
    )
    await prompt(chat, "build")
    await run_all()
    await prompt(chat, "again")
    await run_all()

    first, second = runs(log)
    assert first["argv"][:1] == ["exec"] and first["argv"][-2:] == ["--", "-"]
    assert second["argv"][:2] == ["exec", "resume"]
    assert second["argv"][-3:] == ["--", SESSIONS["codex"], "-"]
    assert (first["stdin"], second["stdin"]) == ("build", "again")
    for argv in (first["argv"], second["argv"]):
        assert "--json" in argv and "--skip-git-repo-check" in argv
        assert 'approval_policy="never"' in argv and "--model=gpt-x" in argv
        assert any(flag.startswith("mcp_servers.crosstalk.url=") for flag in argv)
    home = Path(first["env"]["CODEX_HOME"])
    assert home.name == "codex-home" and (home / "hooks.json").exists()
    assert first["env"]["CODEX_HOME"] == second["env"]["CODEX_HOME"]


async def test_it_runs_gemini_with_its_settings_out_of_the_repository(owner, tmp_path, stand_in):
    log = stand_in("gemini")
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    await prompt(chat, "look")
    await run_all()

    (run,) = runs(log)
    assert run["stdin"] == "look" and "--skip-trust" in run["argv"]
    assert not any("look" in arg for arg in run["argv"])
    settings_file = Path(run["env"]["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])
    assert "crosstalk" in json.loads(settings_file.read_text())["mcpServers"]
    assert (await texts(chat))[-1].startswith("FAKE-FINAL after 2 tool call(s).")


async def test_it_fails_an_error_result_and_holds_what_came_meanwhile(
    owner, chat, tmp_path, stand_in
):
    error = tmp_path / "error.jsonl"
    error.write_text(
        json.dumps({"type": "system", "subtype": "init", "session_id": "s-1"})
        + "\n"
        + json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "is_error": True,
                "result": "API Error: 401 invalid x-api-key",
                "session_id": "s-1",
            }
        )  # fmt: skip
        + "\n"
    )
    stand_in("claude-code", (error, error))
    worker = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    await prompt(worker, "go")
    await run_all()
    worker = await fresh(worker)
    message = await sync_to_async(actions.check_send_message)(chat, to=worker.pk, text="hi?")

    assert worker.status == "failed"
    assert await texts(worker, Entry.Kind.NOTICE) == [
        "The turn failed: claude reported an error: API Error: 401 invalid x-api-key"
    ]
    assert (message.state, message.detail) == ("queued", "held_until_you_write")
    assert await sync_to_async(PeerMessage.objects.filter(state="queued").count)() == 1


async def test_it_fails_a_non_zero_exit_with_its_stderr(owner, tmp_path, monkeypatch):
    program = tmp_path / "gemini"
    program.write_text(
        textwrap.dedent(
            """\
            #!/bin/sh
            echo "Error: GEMINI_API_KEY is not set" >&2
            exit 41
            """
        )
    )
    program.chmod(0o755)
    monkeypatch.setenv("GEMINI_BIN", str(program))
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    await prompt(chat, "go")
    await run_all()

    assert (await fresh(chat)).status == "failed"
    assert await texts(chat, Entry.Kind.NOTICE) == [
        "The turn failed: `gemini` exited with status 41: Error: GEMINI_API_KEY is not set"
    ]


def test_it_makes_a_missing_folder_and_refuses_a_missing_cli(
    runner_owner, owner_api, tmp_path, monkeypatch, agent_folders
):
    missing = {"name": "x", "agent": "codex", "folder": "nope"}
    assert owner_api.call("POST", "/api/v1/chats", missing).status_code == 201
    assert (agent_folders / "alice" / "nope").is_dir()

    monkeypatch.delenv("CLAUDE_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    body = {"name": "y", "agent": "claude-code", "folder": "nope"}
    response = owner_api.call("POST", "/api/v1/chats", body)
    assert response.json() == {
        "code": "invalid_input",
        "message": "agent: `claude` was not found on PATH (set CLAUDE_BIN to its path).",
    }


def test_it_creates_a_chat_without_a_folder_for_a_session_attached_by_hand(
    owner_api, monkeypatch, tmp_path
):
    monkeypatch.delenv("CODEX_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    response = owner_api.call("POST", "/api/v1/chats", {"name": "mine", "agent": "codex"})

    assert response.status_code == 201, response.json()
