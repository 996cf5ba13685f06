"""Before the first hosted run of a process: does the jail hold here? The real jail
(agents.network.jailed: bwrap, its namespaces, pasta's network) runs `cat
/proc/self/status`; a jail that does not start, or whose program keeps any capability
(CapEff not 0: the server runs as root and the kernel gave the jail no user namespace,
say), lets no hosted agent run. One answer per process and per sandbox (bwrap, pasta,
the forwarded ports): a few tens of milliseconds, once."""

import contextlib
import os
import re
import signal
import subprocess
import tempfile

from agents import network, sandbox

PROBE_SECONDS = 20
PROBE_PATH = "/usr/bin:/bin"
CAP_EFF = re.compile(r"^CapEff:\s*([0-9a-fA-F]+)$", re.MULTILINE)
STDERR_CHARS = 300

_answers: dict[tuple, str | None] = {}


def why_not_jailed() -> str | None:
    """Why the jail does not hold on this machine (a clause), or None; cached."""
    key = (sandbox.bwrap(), network.pasta(), tuple(network.forwarded_ports()))
    if key not in _answers:
        _answers[key] = probe()
    return _answers[key]


def probe() -> str | None:
    try:
        status, errors = run_jailed_status()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the jail could not be started to check it ({error})"
    found = CAP_EFF.search(status)
    if found is None:
        said = " ".join(errors.split())[-STDERR_CHARS:] or "it said nothing"
        return f"the jail does not start on this machine ({said})"
    if int(found[1], 16) != 0:
        return (
            f"the jail keeps capabilities (CapEff {found[1]}) on this machine: its program "
            "could act as the server's user and beyond (the kernel refused a user namespace?)"
        )
    return None


def run_jailed_status() -> tuple[str, str]:
    """(stdout, stderr) of `cat /proc/self/status` in the jail, in a folder of its own."""
    with tempfile.TemporaryDirectory(prefix="crosstalk-jail-probe-") as folder:
        argv = network.jailed(["cat", "/proc/self/status"], cwd=folder, writable=[], path=None)
        process = subprocess.Popen(  # noqa: S603 (our own argv, no shell)
            argv,
            cwd=folder,
            env={"PATH": PROBE_PATH},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            return process.communicate(timeout=PROBE_SECONDS)
        finally:
            # Whatever it left (pasta, the jail) ends with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
