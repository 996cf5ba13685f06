"""Nothing a hosted turn started outlives it, whatever process group or session it
moved to. On Linux every turn's command runs under this reaper (agents.process):

    python -I -S reaper.py RUNNER_PID -- ARGV…

It makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): what the command
starts and leaves behind — a shell step Gemini put in a process group of its own, a
daemon that called setsid() — is reparented to the reaper instead of to PID 1, so it
stays below it and it can find it (/proc/*/stat, by parent). It starts the command
with its own stdin, stdout, stderr, working folder and environment, and then:

- when the command exits, it kills (SIGKILL) every process left below it, again until
  none is (an orphan is reparented to it meanwhile), and exits as the command did: the
  same exit code, or killed by the same signal;
- on SIGTERM, SIGINT or SIGHUP (the runner's stop, stall, time limit, lease loss or
  shutdown) it sends SIGTERM to every process below it, gives the command
  GRACE_SECONDS to exit, then kills what is left as above;
- it dies with the runner's thread that started it: PR_SET_PDEATHSIG turns that into
  a SIGTERM to the reaper, so a runner killed with SIGKILL leaves nothing running.

Only a SIGKILL of the reaper itself beats it; the runner sends it one (to its whole
process group) only when it did not end in time. Like agents/join_network.py it is
run by path with `-I -S` and imports only the standard library."""

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 2.0
# A killed process may leave a zombie whose parent is being killed too: look again soon.
SWEEP_PAUSE_SECONDS = 0.01
ENDING = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
WATCHED = ENDING | {signal.SIGCHLD}
# Python ignores these; the command gets them back at their defaults.
PYTHONS_OWN = (signal.SIGPIPE, signal.SIGXFSZ)
# The shell's "command not found / cannot execute".
NOT_STARTED = 127


def prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        print(f"crosstalk reaper: prctl({option}) failed: {os.strerror(error)}", file=sys.stderr)


def below(root: int) -> set[int]:
    """Every process under `root` (zombies too), from each one's parent in /proc."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    text = stat.read()
            except OSError:
                continue  # ended meanwhile
            # "pid (comm) state ppid …": comm may hold spaces and parentheses.
            parents[int(name)] = int(text[text.rindex(b")") + 2 :].split()[1])
    found, level = set(), {root}
    while level:
        level = {pid for pid, parent in parents.items() if parent in level} - found
        found |= level
    return found


def next_signal(deadline: float | None) -> signal.struct_siginfo | None:
    """The next watched signal; None when the deadline passed first."""
    if deadline is None:
        return signal.sigwaitinfo(WATCHED)
    return signal.sigtimedwait(WATCHED, max(0.0, deadline - time.monotonic()))


def signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            continue


class Reaper:
    def __init__(self, command: list[str]) -> None:
        self.child = os.posix_spawnp(
            command[0], command, os.environ, setsigmask=(), setsigdef=PYTHONS_OWN
        )
        self.status: int | None = None

    def reap(self) -> None:
        """Collect every child that ended, the command's wait status among them."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child:
                self.status = status

    def wait(self) -> None:
        """Until the command exits, or a signal's grace for it ran out."""
        deadline = None
        while self.status is None:
            if (got := next_signal(deadline)) is None:
                return
            if got.si_signo in ENDING and deadline is None:
                signal_all(below(os.getpid()), signal.SIGTERM)
                deadline = time.monotonic() + GRACE_SECONDS
            self.reap()

    def sweep(self) -> None:
        """Kill everything below, again until nothing is left (not even a zombie)."""
        while True:
            self.reap()
            if not (left := below(os.getpid())):
                return
            signal_all(left, signal.SIGKILL)
            time.sleep(SWEEP_PAUSE_SECONDS)


def exit_as(status: int) -> None:
    """End with the command's exit code, or by the signal that killed it."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
    sys.exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    runner, command = int(argv[0]), argv[2:]
    # Signals wait until asked for (sigwaitinfo): none is lost between the calls below.
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != runner:
        sys.exit(f"crosstalk reaper: the runner ({runner}) ended before {command[0]} started")
    try:
        reaper = Reaper(command)
    except OSError as error:
        print(f"crosstalk reaper: {command[0]} could not start: {error}", file=sys.stderr)
        sys.exit(NOT_STARTED)
    reaper.wait()
    reaper.sweep()
    exit_as(reaper.status)


if __name__ == "__main__":
    main(sys.argv[1:])
