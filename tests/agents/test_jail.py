"""AGENT_SANDBOX=bwrap holds: the real jail (bubblewrap, and pasta's network) runs with
no capability, as root and as an unprivileged server; it cannot open a host file by
handle; nothing of it outlives its turn; and hosted runs refuse, saying why, where it
cannot be built. Its network: test_jail_network.py."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import jail_probe, network
from agents.launch import Launch, build, why_not_launchable
from agents.process import Ended, ProcessSpec, run_process
from tests.agents.jail import (
    RUN_SECONDS,
    in_jail,
    needs_jail,
    needs_root,
    nobodys_folder,
    run,
)

pytestmark = needs_jail


def capabilities(status: str) -> dict[str, int]:
    found = re.findall(r"^(Cap\w+):\s*(\w+)$", status, re.MULTILINE)
    return {name: int(value, 16) for name, value in found}


def test_it_drops_every_capability_in_the_jail(tmp_path):
    caps = capabilities(in_jail("cat /proc/self/status", tmp_path))

    assert caps["CapEff"] == 0 and caps["CapPrm"] == 0 and caps["CapBnd"] == 0, caps


@needs_root
def test_it_drops_every_capability_when_an_unprivileged_server_starts_the_jail():
    with nobodys_folder() as folder:
        said = in_jail("cat /proc/self/status; id -u", folder, nobody=True)

    assert capabilities(said)["CapEff"] == 0
    assert said.split()[-1] == "65534"


def test_it_the_probe_finds_the_jail_holds_here():
    assert jail_probe.probe() is None


BY_HANDLE = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("kind", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]
if sys.argv[1] == "name":
    handle, mount, path = Handle(128), ctypes.c_int(), sys.argv[2].encode()
    if libc.name_to_handle_at(-100, path, ctypes.byref(handle), ctypes.byref(mount), 0):
        sys.exit("name_to_handle_at: " + os.strerror(ctypes.get_errno()))
    print(handle.kind, bytes(handle.data[: handle.size]).hex())
else:
    data = bytes.fromhex(sys.argv[4])
    handle = Handle(len(data), int(sys.argv[3]))
    handle.data[: len(data)] = list(data)
    mount = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
    opened = libc.open_by_handle_at(mount, ctypes.byref(handle), os.O_RDONLY)
    error = "refused: " + os.strerror(ctypes.get_errno())
    print(os.read(opened, 100).decode() if opened >= 0 else error)
"""


def test_it_cannot_open_a_host_file_by_handle_nor_read_it(tmp_path):
    secret, work = tmp_path / "secret_key", tmp_path / "work"
    secret.write_text("the server's secret")
    work.mkdir()
    named = run([sys.executable, "-c", BY_HANDLE, "name", str(secret)], tmp_path)
    kind, data = named.stdout.split()
    opening = [sys.executable, "-c", BY_HANDLE, "open", str(work), kind, data]
    if run(opening, tmp_path).stdout.strip() != "the server's secret":
        pytest.skip("outside the jail too this user cannot open a file by its handle")

    jailed = network.jailed(opening, cwd=str(work), writable=[], path=None)
    said = run(jailed, work)
    read = in_jail(f"cat {secret} 2>&1 || true", work)

    assert said.stdout.startswith("refused: Operation not permitted"), said
    assert "No such file or directory" in read and "secret" not in read.split(":")[-1]


def processes() -> dict[int, tuple[int, str]]:
    """Live processes of this machine: pid -> (parent's pid, command line)."""
    found = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":  # a zombie is dead, only not reaped yet
            found[int(entry.name)] = (int(fields[1]), cmdline)
    return found


def jail_of(marker: str) -> dict[int, str]:
    """The processes whose command line holds `marker`, and all they started."""
    now = processes()
    family = {pid for pid, (_, cmdline) in now.items() if marker in cmdline}
    while grown := {pid for pid, (parent, _) in now.items() if parent in family} - family:
        family |= grown
    return {pid: now[pid][1] for pid in family}


def wait_gone(pids: set[int], seconds: float = 5) -> set[int]:
    deadline = time.monotonic() + seconds
    while (left := pids & set(processes())) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def sleeper(tmp_path: Path, marker: str) -> ProcessSpec:
    """A jailed turn's process that says it started, then sleeps an hour."""
    command = ["sh", "-c", f"echo started; exec sleep {marker}"]
    # The chat's folder and home, which a hosted turn's set-up makes (agents.adapters.setup).
    (tmp_path / "private" / "home").mkdir(parents=True)
    return build(Launch(command, cwd=str(tmp_path), private=tmp_path / "private"))


@pytest.mark.parametrize("ending", [Ended.STOPPED, Ended.TIMED_OUT])
async def test_it_leaves_no_process_when_a_jailed_turn_ends(ending, tmp_path, settings):
    settings.AGENT_SANDBOX = "bwrap"
    marker = f"3600.{os.getpid()}{len(ending)}"  # a sleep no other process runs
    seen: dict[int, str] = {}

    async def on_line(line: str) -> None:
        seen.update(jail_of(marker))

    async def running() -> bool:
        return ending != Ended.STOPPED or not seen

    timeout = 2 if ending == Ended.TIMED_OUT else RUN_SECONDS
    spec = sleeper(tmp_path, marker)
    outcome = await run_process(
        spec, on_line=on_line, timeout=timeout, still_running=running, poll_seconds=0.1
    )

    assert outcome.ended == ending
    assert any(cmdline.startswith(network.pasta()) for cmdline in seen.values()), seen
    # The jail's program (its shell, or the sleep it becomes) was seen too.
    assert any(cmdline.split()[0] in {"sh", "sleep"} for cmdline in seen.values()), seen
    assert not wait_gone(set(seen))


def test_it_leaves_no_process_when_only_the_launcher_is_killed(tmp_path, settings):
    """Not its group, only the launcher: bwrap and pasta die with their parent."""
    settings.AGENT_SANDBOX = "bwrap"
    marker = f"3600.{os.getpid()}9"
    spec = sleeper(tmp_path, marker)
    launcher = subprocess.Popen(  # noqa: S603
        spec.argv, cwd=spec.cwd, env=spec.env, stdout=subprocess.PIPE, start_new_session=True
    )
    assert launcher.stdout.readline() == b"started\n"
    seen = jail_of(marker)
    launcher.kill()
    launcher.wait()

    assert any(cmdline.startswith(network.pasta()) for cmdline in seen.values()), seen
    assert not wait_gone(set(seen) - {launcher.pid})


@pytest.fixture
def only_bwrap(tmp_path, monkeypatch, settings):
    """A PATH where bubblewrap is, and pasta is not (a folder tests may add to)."""
    settings.AGENT_SANDBOX = "bwrap"
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "bwrap").symlink_to(shutil.which("bwrap"))
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_it_refuses_hosted_runs_without_pasta(only_bwrap):
    problem = why_not_launchable()

    assert problem.startswith("AGENT_SANDBOX=bwrap but pasta")
    assert "(apt install passt), so no hosted agent may run" in problem


def test_it_refuses_hosted_runs_when_the_jail_does_not_start(only_bwrap):
    pasta = only_bwrap / "pasta"
    pasta.write_text("#!/bin/sh\necho 'pasta: no tap device here' >&2\nexit 1\n")
    pasta.chmod(0o755)

    problem = why_not_launchable()

    assert problem.startswith("AGENT_SANDBOX=bwrap but the jail does not start"), problem
    assert "pasta: no tap device here" in problem and "pasta ended (1)" in problem
    assert problem.endswith("so no hosted agent may run")
