"""agents.process: streaming, the stderr tail, and killing the whole group
(on a timeout, a stop, a cancelled runner, and after a clean exit)."""

import asyncio
import os
import sys
import textwrap

import pytest

from agents.process import (
    STDERR_HEAD_CHARS,
    STDERR_TAIL_CHARS,
    Ended,
    ProcessSpec,
    run_process,
)
from tests.agents.conftest import group_gone


def script(tmp_path, body: str) -> list[str]:
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


async def running() -> bool:
    return True


# Starts a grandchild in the same group, says so, then works far past any test.
LINGERING = """
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    print(f"child {child.pid}", flush=True)
    time.sleep(120)
"""


async def test_it_streams_stdout_lines_and_keeps_the_stderr_tail(tmp_path):
    argv = script(
        tmp_path,
        """
        import os, sys
        print("one", flush=True)
        print("two", flush=True)
        print(os.getcwd(), os.environ["CROSSTALK_KEY"], flush=True)
        print(sys.stdin.read() == "", flush=True)
        print("first words", file=sys.stderr)
        print("oops " * 2000, file=sys.stderr)
        print("last words", file=sys.stderr)
        """,
    )
    lines = []

    async def on_line(line: str) -> None:
        lines.append(line)

    spec = ProcessSpec(argv, cwd=str(tmp_path), env={"CROSSTALK_KEY": "cak_x"})
    outcome = await run_process(spec, on_line=on_line, timeout=30, still_running=running)

    assert lines == ["one", "two", f"{tmp_path} cak_x", "True"]
    assert (outcome.ended, outcome.exit_code) == (Ended.EXITED, 0)
    assert outcome.stderr_tail.endswith("oops \nlast words")
    assert len(outcome.stderr_tail) <= STDERR_TAIL_CHARS
    # Its head too: a CLI often says what went wrong first, then a long backtrace.
    assert outcome.stderr_head.startswith("first words\noops")
    assert len(outcome.stderr_head) <= STDERR_HEAD_CHARS
    assert await group_gone(outcome.pgid)


async def test_it_feeds_stdin_and_reports_a_non_zero_exit(tmp_path):
    argv = script(tmp_path, "import sys; print(sys.stdin.read().upper()); sys.exit(4)")
    lines = []

    async def on_line(line: str) -> None:
        lines.append(line)

    spec = ProcessSpec(argv, cwd=str(tmp_path), stdin="hello\n")
    outcome = await run_process(spec, on_line=on_line, timeout=30, still_running=running)

    assert lines == ["HELLO"] and outcome.exit_code == 4 and outcome.ended == Ended.EXITED


async def test_it_kills_the_whole_group_on_timeout(tmp_path):
    spec = ProcessSpec(script(tmp_path, LINGERING), cwd=str(tmp_path))
    children = []

    async def on_line(line: str) -> None:
        children.append(int(line.split()[1]))

    outcome = await run_process(spec, on_line=on_line, timeout=1.5, still_running=running)

    assert outcome.ended == Ended.TIMED_OUT and outcome.exit_code is not None
    assert await group_gone(outcome.pgid)
    assert children, "the grandchild never started"
    with pytest.raises(ProcessLookupError):
        os.kill(children[0], 0)


async def test_it_kills_the_group_when_its_watchdog_gives_up(tmp_path):
    spec = ProcessSpec(script(tmp_path, LINGERING), cwd=str(tmp_path))
    children = []

    async def on_line(line: str) -> None:
        children.append(int(line.split()[1]))

    outcome = await run_process(
        spec, on_line=on_line, timeout=60, still_running=running, give_up=lambda: bool(children)
    )

    assert outcome.ended == Ended.GAVE_UP and outcome.duration_seconds < 30
    assert await group_gone(outcome.pgid)
    with pytest.raises(ProcessLookupError):
        os.kill(children[0], 0)


async def test_it_kills_the_group_when_the_turn_is_stopped(tmp_path):
    spec = ProcessSpec(script(tmp_path, LINGERING), cwd=str(tmp_path))
    started = asyncio.Event()

    async def on_line(line: str) -> None:
        started.set()

    async def still_running() -> bool:
        return not started.is_set()  # the person presses Stop once it is under way

    outcome = await run_process(
        spec, on_line=on_line, timeout=60, still_running=still_running, poll_seconds=0.05
    )

    assert outcome.ended == Ended.STOPPED
    assert outcome.duration_seconds < 30
    assert await group_gone(outcome.pgid)


async def test_it_kills_the_group_when_the_runner_is_cancelled(tmp_path):
    spec = ProcessSpec(script(tmp_path, LINGERING), cwd=str(tmp_path))
    pids = asyncio.Queue()

    async def on_line(line: str) -> None:
        await pids.put(int(line.split()[1]))

    task = asyncio.create_task(
        run_process(spec, on_line=on_line, timeout=60, still_running=running)
    )
    child = await asyncio.wait_for(pids.get(), 30)
    pgid = os.getpgid(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert await group_gone(pgid)


async def test_it_kills_what_a_finished_process_left_behind(tmp_path):
    argv = script(
        tmp_path,
        """
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        print(child.pid, flush=True)
        """,
    )
    pids = []

    async def on_line(line: str) -> None:
        pids.append(int(line))

    spec = ProcessSpec(argv, cwd=str(tmp_path))
    outcome = await run_process(spec, on_line=on_line, timeout=30, still_running=running)

    assert outcome.exit_code == 0 and pids
    assert await group_gone(outcome.pgid)


async def test_it_raises_when_the_program_does_not_exist(tmp_path):
    spec = ProcessSpec([str(tmp_path / "no-such-cli")], cwd=str(tmp_path))

    async def on_line(line: str) -> None:
        raise AssertionError("nothing ran")

    with pytest.raises(FileNotFoundError):
        await run_process(spec, on_line=on_line, timeout=5, still_running=running)
