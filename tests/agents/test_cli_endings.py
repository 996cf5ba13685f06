"""How a hosted CLI's turn is judged (agents.adapters.judge), with stand-in programs:
the meaningful lines of stderr in a failure's reason, a CLI started without its
Crosstalk tools fails (only when the chat's switch is on), settings folders are
private or the turn fails, and the watchdog's rules."""

import json
import os
import stat
import textwrap
import time
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async

from agents.adapters.codex import parse_codex_line
from agents.adapters.events import Trouble
from agents.adapters.judge import Watchdog, failure_reason, host_of, stderr_lines
from agents.process import Ended, ProcessOutcome
from chats.models import Entry
from tests.agents.conftest import fresh, prompt, run_all, texts
from tests.agents.test_cli_adapters import hosted_chat, stand_in  # noqa: F401 (fixture)
from tests.conftest import own_folder

pytestmark = pytest.mark.django_db(transaction=True)


def outcome(head: str = "", tail: str = "", code: int = 1) -> ProcessOutcome:
    return ProcessOutcome(Ended.EXITED, code, tail, 1.0, 1, stderr_head=head)


def program(tmp_path, monkeypatch, variable: str, body: str) -> None:
    path = tmp_path / "cli"
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    monkeypatch.setenv(variable, str(path))


def test_it_a_reason_keeps_the_meaningful_lines_of_stderr_and_its_last_ones():
    head = "Error: thread/resume failed: no rollout found for thread id t-1\n"
    trace = "".join(f"   {n}: <unknown>\n" for n in range(40))
    ended = outcome(head + trace, trace + "note: run with RUST_BACKTRACE=1\n")

    lines = stderr_lines(ended)

    assert lines[0] == head.strip()
    assert lines[-3:] == ["38: <unknown>", "39: <unknown>", "note: run with RUST_BACKTRACE=1"]
    assert len(lines) == len(set(lines)) and sum(len(line) for line in lines) <= 1500


def test_it_a_huge_stderr_makes_a_bounded_reason():
    noisy = "error: " + "x" * 5000 + "\n"
    ended = outcome(noisy * 3, "".join(f"failed step {n}\n" for n in range(500)))
    reason = failure_reason("codex", ended, SimpleNamespace(failure="", trouble=""), "h")
    assert reason.startswith("`codex` exited with status 1: error: xxx")
    assert len(reason) < 2000


def test_it_bytes_no_database_can_store_never_reach_a_reason_or_an_entry():
    ended = outcome("error: bad\x00byte\n", "")
    assert stderr_lines(ended) == ["error: bad\ufffdbyte"]
    line = '{"type":"error","message":"Reconnecting... a\\u0000b \\ud800"}'
    assert parse_codex_line(line) == [Trouble("codex: Reconnecting... a\ufffdb \ufffd", True)]


def test_it_a_failure_that_reads_like_the_network_says_the_model_was_unreachable():
    output = SimpleNamespace(failure="gemini reported an error: fetch failed", trouble="")
    reason = failure_reason("gemini", outcome(code=1), output, "models.example:8443")
    assert reason.startswith("model unreachable (could not reach models.example:8443): ")


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:9/v1", "127.0.0.1:9"),
        ("https://proxy.example", "proxy.example"),
        ("proxy.example:8080/v1", "proxy.example:8080"),
        ("", "api.default"),
    ],
)
def test_it_names_the_host_of_the_model_url(url, host):
    assert host_of(url, "api.default") == host


def test_it_the_watchdog_waits_for_a_running_step_but_not_for_a_silent_model():
    output = SimpleNamespace(open_tools=1, tools_missing="")
    watchdog = Watchdog(output, 0.05, tools_expected=True)
    time.sleep(0.1)
    assert not watchdog.give_up()  # a long build step is not the model's silence
    output.open_tools = 0
    assert not watchdog.give_up()
    time.sleep(0.1)
    assert watchdog.give_up()
    watchdog.saw(progress=True)
    assert not watchdog.give_up()


def test_it_the_watchdog_gives_up_on_missing_tools_only_when_tools_are_expected():
    output = SimpleNamespace(open_tools=0, tools_missing="the crosstalk MCP server was not loaded")
    assert Watchdog(output, 60, tools_expected=True).give_up()
    assert not Watchdog(output, 60, tools_expected=False).give_up()


async def test_it_a_failure_reason_keeps_the_error_before_a_backtrace(owner, tmp_path, monkeypatch):
    program(
        tmp_path,
        monkeypatch,
        "GEMINI_BIN",
        """\
        echo "Error: the real reason" >&2
        for n in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "    at frame $n" >&2; done
        exit 1
        """,
    )
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    await prompt(chat, "go")
    await run_all()

    (notice,) = await texts(chat, Entry.Kind.NOTICE)
    assert notice.startswith("The turn failed: `gemini` exited with status 1: Error: the real")
    assert notice.endswith("at frame 10\nat frame 11\nat frame 12")


INIT_WITHOUT_TOOLS = {
    "type": "system",
    "subtype": "init",
    "session_id": "s-1",
    "mcp_servers": [{"name": "crosstalk", "status": "failed"}],
}
RESULT = {"type": "result", "is_error": False, "result": "did it anyway", "session_id": "s-1"}


@pytest.mark.parametrize("peers", [True, False])
async def test_it_claude_started_without_its_tools_fails_when_the_switch_is_on(
    owner,
    tmp_path,
    stand_in,  # noqa: F811 (the fixture imported above)
    peers,
):
    stream = tmp_path / "no-tools.jsonl"
    stream.write_text(f"{json.dumps(INIT_WITHOUT_TOOLS)}\n{json.dumps(RESULT)}\n")
    stand_in("claude-code", (stream, stream))
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    if not peers:
        await sync_to_async(type(chat).objects.filter(pk=chat.pk).update)(peers=False)
    await prompt(chat, "go")
    await run_all()

    chat = await fresh(chat)
    if peers:
        assert chat.status == "failed"
        assert await texts(chat, Entry.Kind.NOTICE) == [
            "The turn failed: `claude` started without Crosstalk's tools:"
            " the crosstalk MCP server did not connect (failed)"
        ]
    else:
        assert (chat.status, chat.last_answered) == ("idle", "did it anyway")


async def test_it_codex_whose_crosstalk_server_could_not_be_reached_fails(
    owner, tmp_path, monkeypatch, settings
):
    program(
        tmp_path,
        monkeypatch,
        "CODEX_BIN",
        f"""\
        echo 'ERROR rmcp::transport::worker: worker quit with fatal: Transport channel closed,\
 when Client(HttpRequest("error sending request for url ({settings.CROSSTALK_URL}/mcp)"))' >&2
        echo '{{"type":"turn.completed"}}'
        """,
    )
    chat = await sync_to_async(hosted_chat)(owner, "codex", own_folder(owner, "repo"))
    await prompt(chat, "go")
    await run_all()

    (notice,) = await texts(chat, Entry.Kind.NOTICE)
    assert notice == (
        "The turn failed: `codex` started without Crosstalk's tools: the crosstalk MCP server"
        f" at {settings.CROSSTALK_URL} could not be reached"
    )


async def test_it_gemini_that_skipped_its_settings_fails(owner, tmp_path, monkeypatch):
    program(
        tmp_path,
        monkeypatch,
        "GEMINI_BIN",
        """\
        echo "Security Warning: Skipping system settings file '/x/settings.json': insecure" >&2
        echo '{"type":"result","status":"success"}'
        """,
    )
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    await prompt(chat, "go")
    await run_all()

    (notice,) = await texts(chat, Entry.Kind.NOTICE)
    assert notice == (
        "The turn failed: `gemini` started without Crosstalk's tools: gemini ignored its"
        " settings: Security Warning: Skipping system settings file '/x/settings.json': insecure"
    )


async def test_it_settings_below_a_folder_anyone_may_write_fail_the_turn(
    owner,
    tmp_path,
    stand_in,  # noqa: F811 (the fixture imported above)
    settings,
):
    log = stand_in("gemini")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    settings.AGENTS_DIR = shared / "agents"
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    await prompt(chat, "go")
    await run_all()

    assert (await fresh(chat)).status == "failed"
    (notice,) = await texts(chat, Entry.Kind.NOTICE)
    assert notice.startswith(f"The turn failed: the settings folder {shared / 'agents'}")
    assert "which others may write" in notice and "set AGENTS_DIR" in notice
    assert not log.exists(), "the CLI never started without its settings"


async def test_it_a_settings_folder_others_could_read_is_made_private(
    owner,
    tmp_path,
    stand_in,  # noqa: F811 (the fixture imported above)
    settings,
):
    stand_in("gemini")
    chat = await sync_to_async(hosted_chat)(owner, "gemini", own_folder(owner, "repo"))
    folder = settings.AGENTS_DIR / chat.pk
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    await prompt(chat, "go")
    await run_all()

    assert (await fresh(chat)).status == "idle"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert folder.stat().st_uid == os.geteuid()
