"""What a hosted agent's process gets of the server's: an allow-listed environment,
its prompt on stdin, ids where they cannot be options, and with AGENT_SANDBOX=bwrap
no view of var/ or of the server's processes."""

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings

from agents.runner import TurnRunner
from chats.actions import do_stop_chat
from chats.models import Chat
from tests.agents import test_cli_adapters as cli_tests
from tests.agents.conftest import fresh_turn, prompt, run_all, texts, wait_until
from tests.conftest import make_chat, own_folder

pytestmark = pytest.mark.django_db(transaction=True)

# The stand-in CLI that logs how it was started (argv, stdin, environment).
stand_in = cli_tests.stand_in
hosted_chat, runs = cli_tests.hosted_chat, cli_tests.runs

SERVERS_OWN = {
    "SECRET_KEY": "s" * 50,
    "DATABASE_URL": "postgres://crosstalk:pw@db.internal/crosstalk",
    "REDIS_URL": "redis://cache.internal:6379/0",
    "SOME_OTHER_TOKEN": "not-for-agents",
}
HOSTILE = "--mcp-config={}"
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed here"
)


@pytest.fixture
def servers_env(monkeypatch):
    for name, value in SERVERS_OWN.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/model")
    monkeypatch.setenv("PASSED_ON_PURPOSE", "yes")


def command_chat(owner, folder: Path, command: str, name: str = "shell"):
    return make_chat(owner, name, agent="command", command=command, folder=str(folder))


async def answer_of(owner, folder: Path, command: str) -> str:
    chat = await sync_to_async(command_chat)(owner, folder, command)
    turn = await prompt(chat, "go")
    await run_all()
    turn = await fresh_turn(turn)
    return "\n".join(await texts(chat)) + (turn.error or "")


def names_in(env_output: str) -> set[str]:
    return {line.split("=", 1)[0] for line in env_output.splitlines() if "=" in line}


async def test_it_a_command_sees_only_the_allow_listed_environment(
    owner, workdir, servers_env, settings
):
    settings.AGENT_ENV_PASS = ["PASSED_ON_PURPOSE"]
    names = names_in(await answer_of(owner, workdir, "env"))

    assert not names & set(SERVERS_OWN), names
    assert {"PATH", "CROSSTALK_URL", "CROSSTALK_KEY", "PASSED_ON_PURPOSE"} <= names
    # A command chat has no provider: the model's variables are Claude's, not its.
    assert "ANTHROPIC_BASE_URL" not in names


@pytest.mark.parametrize("kind", ["claude-code", "codex", "gemini"])
async def test_it_a_cli_gets_its_providers_variables_and_nothing_of_the_servers(
    kind, owner, tmp_path, stand_in, servers_env
):
    log = stand_in(kind)
    chat = await sync_to_async(hosted_chat)(owner, kind, own_folder(owner, "repo"))
    await prompt(chat, "hello")
    await run_all()

    (run,) = runs(log)
    assert not set(run["names"]) & set(SERVERS_OWN), run["names"]
    assert "PASSED_ON_PURPOSE" not in run["names"]
    assert ("ANTHROPIC_BASE_URL" in run["names"]) == (kind == "claude-code")


@pytest.mark.parametrize("kind", ["claude-code", "codex", "gemini"])
async def test_it_a_stored_session_id_is_never_an_option_nor_is_the_prompt(
    kind, owner, tmp_path, stand_in
):
    """Hooks refuse such an id; should one be stored anyway, it stays a value."""
    log = stand_in(kind)
    chat = await sync_to_async(hosted_chat)(owner, kind, own_folder(owner, "repo"))
    await sync_to_async(Chat.objects.filter(pk=chat.pk).update)(session_id=HOSTILE)
    await prompt(chat, "- a list item that looks like --yolo")
    await run_all()

    (run,) = runs(log)
    argv = run["argv"]
    assert run["stdin"] == "- a list item that looks like --yolo"
    assert not any("list item" in arg for arg in argv)
    if kind == "codex":  # a positional after "--"
        assert argv[-3:] == ["--", HOSTILE, "-"] and argv.count(HOSTILE) == 1
    else:
        assert f"--resume={HOSTILE}" in argv and HOSTILE not in argv


# AGENT_SANDBOX=bwrap ---------------------------------------------------------


@pytest.fixture
def jailed(settings):
    settings.AGENT_SANDBOX = "bwrap"
    return settings


@pytest.fixture
def server_files():
    """The server's secret key and a database file in var/, readable outside the jail."""
    var = Path(django_settings.VAR_DIR)
    var.mkdir(exist_ok=True)
    secret = var / "secret_key"
    assert secret.read_text().strip(), "the server's secret key is there to be read"
    database = var / "db.sqlite3"
    made = not database.exists()
    if made:
        database.write_bytes(b"SQLite format 3\x00")
    yield secret, database
    if made:
        database.unlink()


@needs_bwrap
async def test_it_a_jailed_command_cannot_read_var(owner, workdir, jailed, server_files):
    secret, database = server_files
    command = f"cat {secret} {database} 2>&1; echo exit=$?"
    said = await answer_of(owner, workdir, command)

    assert "No such file or directory" in said and "exit=1" in said
    assert secret.read_text().strip() not in said and "SQLite format" not in said


def test_it_a_jail_whose_folder_holds_the_checkout_gets_var_empty():
    """No chat's folder may be the checkout (chats.folders); the jail hides var/ anyway."""
    from agents import sandbox

    checkout = str(django_settings.BASE_DIR)
    argv = sandbox.jailed(["/bin/sh"], cwd=checkout, writable=[], path="")
    var = str(Path(django_settings.VAR_DIR).resolve())
    assert argv.index("--tmpfs", argv.index(checkout)) == argv.index(var) - 1


@needs_bwrap
async def test_it_a_jailed_command_sees_no_server_process(owner, workdir, jailed, servers_env):
    said = await answer_of(owner, workdir, "cat /proc/[0-9]*/comm; env")

    processes = [line for line in said.splitlines() if "=" not in line]
    # Only its own (bubblewrap's init, the shell): not this test's python, nor anything else.
    assert "sh" in processes and set(processes) <= {"bwrap", "sh", "cat"}, processes
    assert not names_in(said) & set(SERVERS_OWN)
    assert "HOME=" + str(django_settings.AGENTS_DIR) in said


@needs_bwrap
async def test_it_a_jailed_command_writes_its_folder_and_nothing_else(owner, workdir, jailed):
    outside = Path.home() / f".crosstalk-jail-test-{os.getpid()}"
    command = f"echo made > made.txt; echo x > {outside}; (echo x > /usr/x) 2>&1; echo exit=$?"
    said = await answer_of(owner, workdir, command)

    assert (workdir / "made.txt").read_text() == "made\n"
    # Outside its folders the jail's root is a scratch tmpfs, the system read-only.
    assert not outside.exists() and "Read-only file system" in said


async def test_it_a_missing_bwrap_fails_the_turn_with_the_reason(
    owner, tmp_path, workdir, jailed, monkeypatch
):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    said = await answer_of(owner, workdir, "/bin/echo hi")

    assert "AGENT_SANDBOX=bwrap but bubblewrap (`bwrap`) is not installed" in said
    assert "hi" not in said.splitlines()


def running_with(marker: str) -> list[str]:
    """Processes of this machine whose command line holds `marker`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker in cmdline.read_bytes().decode(errors="replace"):
                found.append(cmdline.parent.name)
        except OSError:
            continue
    return found


@needs_bwrap
async def test_it_a_jailed_turn_the_person_stops_leaves_nothing_running(owner, workdir, jailed):
    seconds = f"3600.{os.getpid()}"  # a sleep no other process runs
    chat = await sync_to_async(command_chat)(owner, workdir, f"echo started; sleep {seconds}")
    await prompt(chat, "long job")
    runner = TurnRunner("tests")
    serving = asyncio.create_task(runner.run_until_idle(30))

    await wait_until(lambda: chat.entries.filter(kind="answer").exists(), "the jail to start")
    assert running_with(seconds)  # bwrap and the sleep inside it
    await sync_to_async(do_stop_chat)(chat)
    await serving

    await wait_until(lambda: not running_with(seconds), "the jail and its sleep to be gone")


def test_it_the_jail_lends_no_folder_holding_var_or_the_servers_home(tmp_path):
    from agents import sandbox

    tools = tmp_path / "tools"
    tools.mkdir()
    var = Path(django_settings.VAR_DIR)
    path = os.pathsep.join(["/", ".", str(Path.home()), str(var), str(var.parent), str(tools)])
    lent = sandbox.readable(["/bin/sh"], path)

    assert tools in lent
    assert not {Path("/"), Path("."), Path.home(), var, var.parent} & set(lent)
    argv = sandbox.jailed(["/bin/sh"], cwd=str(tmp_path), writable=[], path=path)
    assert argv[-2:] == ["--", "/bin/sh"] and "--unshare-pid" in argv
    # Its network is pasta's (agents.network); no value on its command line.
    assert "--unshare-net" in argv and "--setenv" not in argv
