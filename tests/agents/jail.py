"""Running the real jail (agents.network.jailed: bubblewrap and pasta) in tests."""

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agents import network

needs_jail = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("pasta") is None,
    reason="the jail needs bubblewrap (`bwrap`) and pasta (apt install bubblewrap passt)",
)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None,
    reason="running the jail as `nobody` takes root (runuser)",
)
RUN_SECONDS = 30
# The interpreter a server run as nobody would have (this one's may be under /root).
SYSTEM_PYTHON = "/usr/bin/python3"


def jail_argv(command: str, folder: Path) -> list[str]:
    return network.jailed(["bash", "-c", command], cwd=str(folder), writable=[], path=None)


def run(argv: list[str], folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603
        argv,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )


def in_jail(command: str, folder: Path, *, nobody: bool = False) -> str:
    """What `bash -c COMMAND` prints in the jail, started by this server's user or, as
    a server run as `nobody` would, by nobody (root only)."""
    argv = jail_argv(command, folder)
    done = run(as_nobody(argv) if nobody else argv, folder)
    assert done.returncode == 0, done.stderr
    return done.stdout


def as_nobody(argv: list[str]) -> list[str]:
    """The same jail started by `nobody`: its launcher run by the system's python, from
    where nobody can read it (a service user reads its own checkout; this one may be
    root's alone), and without what nobody cannot read (this test's interpreter)."""
    launcher = str(network.LAUNCHER)
    kept = [
        SYSTEM_PYTHON,
        *(readable_by_nobody(network.LAUNCHER) if arg == launcher else arg for arg in argv[1:]),
    ]
    at = 0
    while at < len(kept):
        if kept[at] == "--ro-bind" and not open_to_others(Path(kept[at + 1])):
            del kept[at : at + 3]
        else:
            at += 1
    return [shutil.which("runuser") or "runuser", "-u", "nobody", "--", *kept]


@functools.cache
def readable_by_nobody(script: Path) -> str:
    """A script where nobody can read it: a copy, when the checkout is not open to others."""
    if open_to_others(script):
        return str(script)
    folder = Path(tempfile.mkdtemp(prefix="crosstalk-launcher-"))
    folder.chmod(0o755)
    copy = folder / script.name
    shutil.copyfile(script, copy)
    copy.chmod(0o644)
    return str(copy)


def open_to_others(path: Path) -> bool:
    folders_open = all(folder.stat().st_mode & 0o001 for folder in path.parents)
    return folders_open and bool(path.stat().st_mode & 0o004)


@contextlib.contextmanager
def nobodys_folder():
    """A working folder nobody may enter (a test's tmp_path is root's alone)."""
    with tempfile.TemporaryDirectory(prefix="crosstalk-jail-nobody-") as folder:
        Path(folder).chmod(0o755)
        yield Path(folder)
