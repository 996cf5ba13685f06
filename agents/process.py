"""An agent's process, handled in one place: spawned in its own process group,
its stdout streamed line by line, the head and tail of its stderr kept, and ended
with everything it started on a timeout, on the person's Stop, when the caller's
watchdog gives up on it (no progress), on runner shutdown, and after it exits (so
nothing it started outlives the turn).

On Linux it runs under agents/reaper.py, a subreaper that also ends what left the
process group (a CLI's step in a group or session of its own): the runner signals the
reaper, which ends all of it; the group is killed only should the reaper not end in
time. Elsewhere the group is all that is killed."""

import asyncio
import atexit
import contextlib
import errno
import os
import shutil
import signal
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from agents import reaper

REAPER = Path(reaper.__file__)
REAPED = sys.platform == "linux"
# How long a group gets between SIGTERM and SIGKILL; under the reaper, the reaper's
# own grace for the CLI and then some for it to kill the rest.
GRACE_SECONDS = reaper.GRACE_SECONDS + 3.0 if REAPED else 2.0
# How often a running process checks that its turn was not stopped.
STOP_POLL_SECONDS = 0.5
# One JSON event can be large (a tool result): allow long lines.
LINE_LIMIT = 16 * 1024 * 1024
STDERR_TAIL_CHARS = 4000
# The first lines of stderr too: a CLI often says why it fails first, then a backtrace.
STDERR_HEAD_CHARS = 4000


# Groups of processes running now: killed at exit too, should the server go down abruptly.
LIVE_GROUPS: set[int] = set()


class Ended:
    EXITED = "exited"
    TIMED_OUT = "timed_out"
    STOPPED = "stopped"
    # The caller's watchdog (`give_up`) said so: no progress, or a start without its tools.
    GAVE_UP = "gave_up"


@dataclass(slots=True)
class ProcessSpec:
    argv: list[str]
    cwd: str
    # Its whole environment: nothing of the server's own is added (agents.launch builds it).
    env: dict[str, str] = field(default_factory=dict)
    # Written to stdin, which is then closed; None: stdin is /dev/null.
    stdin: str | None = None


@dataclass(slots=True)
class ProcessOutcome:
    ended: str
    exit_code: int | None
    stderr_tail: str
    duration_seconds: float
    pgid: int
    stderr_head: str = ""


async def run_process(
    spec: ProcessSpec,
    *,
    on_line: Callable[[str], Awaitable[None]],
    timeout: float,
    still_running: Callable[[], Awaitable[bool]],
    poll_seconds: float = STOP_POLL_SECONDS,
    give_up: Callable[[], bool] | None = None,
) -> ProcessOutcome:
    """Run to the end, the timeout, a stop, or until `give_up()` (asked as often as
    `still_running`) says True; raises OSError when it cannot start.

    Cancelling the caller (runner shutdown) kills the group too."""
    started = time.monotonic()
    process = await spawn(spec)
    LIVE_GROUPS.add(process.pid)
    stderr, head = deque(maxlen=STDERR_TAIL_CHARS), []
    pumps = [
        asyncio.create_task(pump_lines(process.stdout, on_line)),
        asyncio.create_task(keep_tail(process.stderr, stderr, head)),
        asyncio.create_task(feed_stdin(process, spec.stdin)),
    ]
    try:
        ended = await watch(process, timeout, still_running, poll_seconds, give_up)
    finally:
        await end_group(process, pumps)
    return ProcessOutcome(
        ended=ended,
        exit_code=process.returncode,
        stderr_tail="".join(stderr).strip(),
        duration_seconds=round(time.monotonic() - started, 3),
        pgid=process.pid,
        stderr_head="".join(head).strip(),
    )


async def spawn(spec: ProcessSpec) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *command_line(spec),
        cwd=spec.cwd,
        env=spec.env,
        stdin=asyncio.subprocess.DEVNULL if spec.stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # A new session is a new process group whose id is the child's pid.
        start_new_session=True,
        limit=LINE_LIMIT,
    )


def command_line(spec: ProcessSpec) -> list[str]:
    """The spec's argv, under the reaper where there is one. The reaper starts the
    program: that it cannot is told here, as starting it would (OSError)."""
    if not REAPED:
        return spec.argv
    program = spec.argv[0]
    if os.sep in program:
        program = os.path.join(spec.cwd, program)  # an absolute path stays itself
    if shutil.which(program, path=spec.env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), spec.argv[0])
    return [sys.executable, "-I", "-S", str(REAPER), str(os.getpid()), "--", *spec.argv]


async def watch(process, timeout: float, still_running, poll_seconds: float, give_up) -> str:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Ended.TIMED_OUT
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), min(poll_seconds, remaining))
            return Ended.EXITED
        except TimeoutError:
            pass
        if not await still_running():
            return Ended.STOPPED
        if give_up is not None and give_up():
            return Ended.GAVE_UP


async def end_group(process, pumps: list[asyncio.Task]) -> None:
    """Kill whatever of the group still runs, reap the child, drain the pipes."""
    if process.returncode is None:
        terminate(process.pid)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), GRACE_SECONDS)
    # Also after a clean exit: children it left behind must not outlive the turn.
    signal_group(process.pid, signal.SIGKILL)
    await asyncio.shield(process.wait())
    LIVE_GROUPS.discard(process.pid)
    done, pending = await asyncio.wait(pumps, timeout=GRACE_SECONDS)
    for task in pending:
        task.cancel()
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()


def terminate(pid: int) -> None:
    """Ask the process to end: the reaper, which ends all below it, else its group."""
    if REAPED:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    else:
        signal_group(pid, signal.SIGTERM)


@atexit.register
def kill_live_groups() -> None:
    """The reapers end their turns after this process is gone (they would anyway when
    it dies: PR_SET_PDEATHSIG); without them, the groups are killed."""
    for pgid in list(LIVE_GROUPS):
        if REAPED:
            terminate(pgid)
        else:
            signal_group(pgid, signal.SIGKILL)


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def pump_lines(stream: asyncio.StreamReader, on_line) -> None:
    while line := await stream.readline():
        text = line.decode("utf-8", errors="replace").rstrip("\r\n")
        if text.strip():
            await on_line(text)


async def keep_tail(stream: asyncio.StreamReader, tail: deque, head: list) -> None:
    kept = 0
    while chunk := await stream.read(4096):
        text = chunk.decode("utf-8", errors="replace")
        if kept < STDERR_HEAD_CHARS:
            head.append(text[: STDERR_HEAD_CHARS - kept])
            kept += len(head[-1])
        tail.extend(text)


async def feed_stdin(process, text: str | None) -> None:
    if text is None or process.stdin is None:
        return
    # A command that exits without reading its input is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(text.encode())
        await process.stdin.drain()
    process.stdin.close()
