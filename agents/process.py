"""An agent's process, handled in one place: spawned in its own process group,
its stdout streamed line by line, the tail of its stderr kept, and the whole
group killed on a timeout, on the person's Stop, on runner shutdown, and after
it exits (so nothing it started outlives the turn)."""

import asyncio
import atexit
import contextlib
import os
import signal
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

# How long a group gets between SIGTERM and SIGKILL.
GRACE_SECONDS = 2.0
# How often a running process checks that its turn was not stopped.
STOP_POLL_SECONDS = 0.5
# One JSON event can be large (a tool result): allow long lines.
LINE_LIMIT = 16 * 1024 * 1024
STDERR_TAIL_CHARS = 2000


# Groups of processes running now: killed at exit too, should the server go down abruptly.
LIVE_GROUPS: set[int] = set()


class Ended:
    EXITED = "exited"
    TIMED_OUT = "timed_out"
    STOPPED = "stopped"


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


async def run_process(
    spec: ProcessSpec,
    *,
    on_line: Callable[[str], Awaitable[None]],
    timeout: float,
    still_running: Callable[[], Awaitable[bool]],
    poll_seconds: float = STOP_POLL_SECONDS,
) -> ProcessOutcome:
    """Run to the end, the timeout, or a stop; raises OSError when it cannot start.

    Cancelling the caller (runner shutdown) kills the group too."""
    started = time.monotonic()
    process = await spawn(spec)
    LIVE_GROUPS.add(process.pid)
    stderr = deque(maxlen=STDERR_TAIL_CHARS)
    pumps = [
        asyncio.create_task(pump_lines(process.stdout, on_line)),
        asyncio.create_task(keep_tail(process.stderr, stderr)),
        asyncio.create_task(feed_stdin(process, spec.stdin)),
    ]
    try:
        ended = await watch(process, timeout, still_running, poll_seconds)
    finally:
        await end_group(process, pumps)
    return ProcessOutcome(
        ended=ended,
        exit_code=process.returncode,
        stderr_tail="".join(stderr).strip(),
        duration_seconds=round(time.monotonic() - started, 3),
        pgid=process.pid,
    )


async def spawn(spec: ProcessSpec) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *spec.argv,
        cwd=spec.cwd,
        env=spec.env,
        stdin=asyncio.subprocess.DEVNULL if spec.stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # A new session is a new process group whose id is the child's pid.
        start_new_session=True,
        limit=LINE_LIMIT,
    )


async def watch(process, timeout: float, still_running, poll_seconds: float) -> str:
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


async def end_group(process, pumps: list[asyncio.Task]) -> None:
    """Kill whatever of the group still runs, reap the child, drain the pipes."""
    if process.returncode is None:
        signal_group(process.pid, signal.SIGTERM)
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


@atexit.register
def kill_live_groups() -> None:
    for pgid in list(LIVE_GROUPS):
        signal_group(pgid, signal.SIGKILL)


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def pump_lines(stream: asyncio.StreamReader, on_line) -> None:
    while line := await stream.readline():
        text = line.decode("utf-8", errors="replace").rstrip("\r\n")
        if text.strip():
            await on_line(text)


async def keep_tail(stream: asyncio.StreamReader, tail: deque) -> None:
    while chunk := await stream.read(4096):
        tail.extend(chunk.decode("utf-8", errors="replace"))


async def feed_stdin(process, text: str | None) -> None:
    if text is None or process.stdin is None:
        return
    # A command that exits without reading its input is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(text.encode())
        await process.stdin.drain()
    process.stdin.close()
