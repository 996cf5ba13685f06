"""Nothing a turn started outlives it, even what left the turn's process group or
session (as Gemini's shell steps do): agents/reaper.py, under which agents.process
runs every turn on Linux. Each test's process carries a unique marker in its command
line (a sleep of 3000.<random digits> s) and is looked for in /proc."""

import asyncio
import os
import pwd
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from agents import process, reaper
from agents.process import Ended, ProcessSpec, run_process
from agents.runner import TurnRunner
from chats.actions import do_stop_chat
from chats.models import Entry
from tests.agents.conftest import fresh, marked, none_marked, prompt, run_all, texts, wait_until
from tests.agents.jail import SYSTEM_PYTHON, needs_root, readable_by_nobody
from tests.agents.test_hosted_process import command_chat, needs_bwrap
from tests.servers import poll

pytestmark = pytest.mark.skipif(not process.REAPED, reason="the reaper is Linux's")


@pytest.fixture
def marker() -> str:
    """A sleep's length no other process on the machine has."""
    return f"3000.{random.randrange(10**14, 10**15)}"


def escaping(marker: str, *, then: str = "") -> str:
    """A shell command that starts a sleep in a session (and group) of its own, says
    so once it runs, then goes on with `then` (by default sleeps as long itself)."""
    escape = f"setsid sleep {marker} </dev/null >/dev/null 2>&1 &"
    wait = f"until pgrep -f '^sleep {marker}$' >/dev/null; do sleep 0.01; done"
    return f"{escape} {wait}; echo started; {then or f'sleep {marker}'}"


@pytest.fixture(params=["unjailed", pytest.param("jailed", marks=needs_bwrap)])
def sandbox(request, settings) -> str:
    settings.AGENT_SANDBOX = "bwrap" if request.param == "jailed" else "none"
    return request.param


@pytest.mark.django_db(transaction=True)
async def test_it_a_stopped_turn_leaves_no_process_that_left_its_group(
    owner, workdir, marker, sandbox
):
    chat = await sync_to_async(command_chat)(owner, workdir, escaping(marker))
    await prompt(chat, "long job")
    serving = asyncio.create_task(TurnRunner("tests").run_until_idle(30))
    await wait_until(lambda: len(marked(marker)) == 2, "its sleep and the escaped one to start")

    await sync_to_async(do_stop_chat)(chat)
    await serving

    assert await none_marked(marker), f"still running: {marked(marker)}"
    assert (await fresh(chat)).status == "stopped"


@pytest.mark.django_db(transaction=True)
async def test_it_a_turn_past_its_time_limit_leaves_no_process_that_left_its_group(
    owner, workdir, marker, settings
):
    settings.TURN_TIMEOUT_SECONDS = 1
    chat = await sync_to_async(command_chat)(owner, workdir, escaping(marker))
    await prompt(chat, "never ends")

    await run_all()

    assert (await fresh(chat)).status == "failed"
    assert [text.strip() for text in await texts(chat)] == ["started"], "the sleep escaped"
    assert await none_marked(marker), f"still running: {marked(marker)}"


@pytest.mark.django_db(transaction=True)
async def test_it_a_turn_that_ends_leaves_nothing_it_started_running(owner, workdir, marker):
    chat = await sync_to_async(command_chat)(owner, workdir, escaping(marker, then="true"))
    await prompt(chat, "quick job")

    await run_all()

    assert (await fresh(chat)).status == "idle"
    assert await texts(chat, Entry.Kind.ANSWER) == ["started"]
    assert await none_marked(marker), f"still running: {marked(marker)}"


async def running() -> bool:
    return True


@pytest.mark.parametrize("ending", [Ended.GAVE_UP, Ended.TIMED_OUT, "cancelled"])
async def test_it_every_other_ending_leaves_no_process_that_left_its_group(
    tmp_path, marker, ending
):
    spec = ProcessSpec(["/bin/sh", "-c", escaping(marker)], cwd=str(tmp_path), env=dict(os.environ))
    started = asyncio.Event()

    async def on_line(line: str) -> None:
        await wait_until(lambda: len(marked(marker)) == 2, "both sleeps to start")
        started.set()

    task = asyncio.create_task(
        run_process(
            spec,
            on_line=on_line,
            timeout=1 if ending == Ended.TIMED_OUT else 60,
            still_running=running,
            poll_seconds=0.05,
            give_up=lambda: ending == Ended.GAVE_UP and started.is_set(),
        )
    )
    if ending == "cancelled":  # the runner shuts down
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    else:
        assert (await task).ended == ending

    assert await none_marked(marker), f"still running: {marked(marker)}"


# A stand-in runner: says its pid, starts the reaper as agents.process does, then waits.
STAND_IN = """
import os, subprocess, sys, time
python, reaper, command = sys.argv[1:]
print(os.getpid(), flush=True)
subprocess.Popen([python, "-I", "-S", reaper, str(os.getpid()), "--", "/bin/sh", "-c", command])
time.sleep(300)
"""


@pytest.mark.parametrize("user", ["the server's user", pytest.param("nobody", marks=needs_root)])
def test_it_a_runner_killed_with_sigkill_leaves_nothing_running(marker, user):
    python, script, uid = sys.executable, str(process.REAPER), os.getuid()
    if user == "nobody":  # as a server run by an unprivileged user
        python, script, uid = SYSTEM_PYTHON, readable_by_nobody(process.REAPER), nobody_uid()
    argv = [python, "-c", STAND_IN, python, script, escaping(marker)]
    if user == "nobody":
        argv = [shutil.which("runuser"), "-u", "nobody", "--", *argv]
    standing_in = subprocess.Popen(argv, cwd="/", stdout=subprocess.PIPE, start_new_session=True)  # noqa: S603
    runner = int(standing_in.stdout.readline())
    try:
        sleeps = poll(lambda: len(marked(marker)) == 2 and marked(marker), "both sleeps to start")
        assert {Path(f"/proc/{pid}").stat().st_uid for pid in sleeps} == {uid}
    finally:
        os.kill(runner, signal.SIGKILL)
        standing_in.wait()

    poll(lambda: not marked(marker), "every process of the turn to end", timeout=10)


def nobody_uid() -> int:
    return pwd.getpwnam("nobody").pw_uid


async def test_it_passes_on_the_signal_that_killed_the_command(tmp_path):
    spec = ProcessSpec(["/bin/sh", "-c", "kill -TERM $$"], cwd=str(tmp_path))

    async def on_line(line: str) -> None:
        raise AssertionError("it says nothing")

    outcome = await run_process(spec, on_line=on_line, timeout=30, still_running=running)

    assert (outcome.ended, outcome.exit_code) == (Ended.EXITED, -signal.SIGTERM)


def test_it_runs_the_command_with_its_own_stdin_stdout_and_exit_code(tmp_path):
    argv = process.command_line(ProcessSpec(["/bin/sh", "-c", "tr a-z A-Z; exit 3"], cwd="/"))
    assert argv[:4] == [sys.executable, "-I", "-S", reaper.__file__]

    done = subprocess.run(argv, input=b"hello\n", capture_output=True, timeout=30)  # noqa: S603

    assert (done.returncode, done.stdout, done.stderr) == (3, b"HELLO\n", b"")
