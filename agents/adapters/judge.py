"""How a CLI's turn is judged as it runs and once it ended.

While it runs, a watchdog gives up on it when the model is out of reach (no
progress for TURN_STALL_SECONDS while no step of its runs; a retry of the model
is no progress) or when it started without Crosstalk's tools. Once it ended, a
failure's reason keeps what its stderr says went wrong, and one that reads like a
network failure says the model was unreachable and names the host it was given."""

import re
import time
from urllib.parse import urlsplit

from agents.adapters.events import printable
from agents.adapters.output import TurnOutput
from agents.process import ProcessOutcome

# Lines of stderr worth keeping in a reason, wherever they are (often before a backtrace).
MEANINGFUL = re.compile(
    r"error|fail|fatal|panic|denied|refused|not found|no rollout|cannot|could not|unable"
    r"|invalid|unauthori[sz]ed|forbidden|exception|timed? ?out",
    re.IGNORECASE,
)
# What a failure reads like when the model could not be reached at all.
UNREACHABLE = re.compile(
    r"connection (error|refused|reset)|econnrefused|econnreset|enotfound|eai_again"
    r"|fetch failed|error sending request|could not resolve|network is unreachable"
    r"|waiting for network|failed to connect",
    re.IGNORECASE,
)
# Lines a CLI prints on every run, which say nothing of why it failed.
NOISE = re.compile(r"^Reading (additional )?(input|prompt) from stdin", re.IGNORECASE)
TAIL_LINES = 3
LINE_CHARS = 300
REASON_CHARS = 1500
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def host_of(url: str, default: str) -> str:
    """The host (and port) of a model URL; the CLI's default host when none was given."""
    url = url.strip()
    if not url:
        return default
    return urlsplit(url if "://" in url else f"//{url}").netloc or default


def stderr_lines(outcome: ProcessOutcome) -> list[str]:
    """The meaningful lines of stderr (head and tail) and its last lines, each once."""
    head = outcome.stderr_head.splitlines()
    tail = outcome.stderr_tail.splitlines()
    picked = [line for line in head + tail if MEANINGFUL.search(line)] + tail[-TAIL_LINES:]
    seen, kept, size = set(), [], 0
    for line in picked:
        line = printable(ANSI.sub("", line)).strip()
        line = line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
        if not line or NOISE.match(line) or line in seen or size + len(line) > REASON_CHARS:
            continue
        seen.add(line)
        kept.append(line)
        size += len(line) + 1
    return kept


def exit_failure(program: str, outcome: ProcessOutcome) -> str:
    """`claude` exited with status 1: <what its stderr says went wrong>."""
    code = outcome.exit_code
    killed = code is not None and code < 0
    how = f"was killed by signal {-code}" if killed else f"exited with status {code}"
    lines = stderr_lines(outcome)
    return f"`{program}` {how}" + (": " + "\n".join(lines) if lines else "")


def failure_reason(program: str, outcome: ProcessOutcome, output: TurnOutput, host: str) -> str:
    """The reason of a turn that ended badly: its final event's, else its last error's,
    else its exit status and stderr; "model unreachable" when that is what it reads like."""
    reason = output.failure or output.trouble or exit_failure(program, outcome)
    if reason != exit_failure(program, outcome) and outcome.exit_code not in (0, None):
        extra = [line for line in stderr_lines(outcome) if line not in reason]
        reason += "".join(f"\n{line}" for line in extra)
    if UNREACHABLE.search(reason):
        return f"model unreachable (could not reach {host}): {reason}"
    return reason


class Watchdog:
    """Asked by agents.process between polls: give up on this CLI now?"""

    def __init__(self, output: TurnOutput, stall_seconds: float | None, *, tools_expected: bool):
        self.output = output
        self.stall_seconds = stall_seconds
        self.tools_expected = tools_expected
        self.progressed_at = time.monotonic()

    def saw(self, progress: bool) -> None:
        if progress:
            self.progressed_at = time.monotonic()

    def tools_missing(self) -> bool:
        return self.tools_expected and bool(self.output.tools_missing)

    def give_up(self) -> bool:
        if self.tools_missing():
            return True
        if self.stall_seconds is None or self.output.open_tools:
            # A step runs (a build, a test): its time is its own, not the model's.
            self.progressed_at = time.monotonic()
            return False
        return time.monotonic() - self.progressed_at > self.stall_seconds

    def reason(self, program: str, outcome: ProcessOutcome, host: str) -> str:
        if self.tools_missing():
            return f"`{program}` started without Crosstalk's tools: {self.output.tools_missing}"
        waited = f"{self.stall_seconds:g}"
        reason = (
            f"model unreachable: `{program}` made no progress for {waited} s"
            f" waiting for the model at {host}, and was stopped"
        )
        extra = [self.output.trouble] if self.output.trouble else []
        extra += [line for line in stderr_lines(outcome) if line not in extra]
        return reason + "".join(f"\n{line}" for line in extra)
