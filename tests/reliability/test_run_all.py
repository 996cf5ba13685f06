"""bin/run-all supervises: a worker killed with SIGKILL is started again and the web
processes keep serving; Ctrl-C (SIGINT to the group) stops everything it started."""

import os
import signal
import socket
import subprocess
import sys

import pytest
from django.conf import settings

from tests.reliability.procs import ROOT, database_url, free_port, http, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def free_port_pair() -> int:
    """A port p with p+1 free too (run-all listens on PORT, PORT+1, …)."""
    for _ in range(50):
        port = free_port()
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise AssertionError("no two adjacent free ports")


# As a terminal starts it: Ctrl-C can only reach a shell whose SIGINT was not ignored
# when it started, and a suite run from a background job (`make test &`, a CI runner's
# shell) hands its children SIGINT ignored. The launcher puts it back, then becomes run-all.
AS_FROM_A_TERMINAL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def group_members(pgid: int) -> list[str]:
    out = subprocess.run(["ps", "-o", "pid=,args=", "-g", str(pgid)], capture_output=True)  # noqa: S603, S607
    return [line for line in out.stdout.decode().splitlines() if line.strip()]


def test_it_restarts_a_killed_worker_and_stops_all_on_ctrl_c(redis_server, tmp_path):
    port = free_port_pair()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_server.url,
        "REDIS_PREFIX": f"runall-{port}",
        "SECRET_KEY": settings.SECRET_KEY,
        "PORT": str(port),
        "WEB_PROCESSES": "2",
        "WORKERS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    log = tmp_path / "run-all.log"
    with log.open("wb") as out:
        run_all = subprocess.Popen(  # noqa: S603
            [sys.executable, "-c", AS_FROM_A_TERMINAL, str(ROOT / "bin" / "run-all")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(
            lambda: log.read_text().count("Crosstalk is running") == 2, "two web processes", 40
        )
        wait_for(lambda: "is waiting for turns" in log.read_text(), "the worker", 40)
        worker = next(line for line in group_members(run_all.pid) if "run_turns" in line)
        os.kill(int(worker.split()[0]), signal.SIGKILL)

        wait_for(lambda: log.read_text().count("is waiting for turns") == 2, "a new worker", 40)
        assert "worker 1 ended (status 137)" in log.read_text()
        for web_port in (port, port + 1):
            assert http("GET", f"http://127.0.0.1:{web_port}/accounts/login/")[0] == 200

        os.killpg(run_all.pid, signal.SIGINT)
        assert run_all.wait(30) == 0
        wait_for(lambda: not group_members(run_all.pid), "every process to stop", 20)
    finally:
        if run_all.poll() is None or group_members(run_all.pid):
            os.killpg(run_all.pid, signal.SIGKILL)
