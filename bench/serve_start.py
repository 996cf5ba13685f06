"""What starting a web process costs: the CPU `manage.py serve` spends from its exec
to its "Crosstalk is running at" line. The test suite
starts some forty servers and `make run` one per restart, so this is paid often.

    .venv/bin/python -m bench.serve_start [--runs 5] [--checkout PATH]
    .venv/bin/python -m bench.serve_start --quick   # one start, no warm-up start

Each run starts `serve --no-runner` on a free port of 127.0.0.1 on one migrated SQLite
file in a temporary folder (no Redis), reads its CPU from /proc once it says it
listens, then stops it. --checkout measures another checkout (an older commit, say)
with this interpreter, for a before and after on one machine."""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.send import QUICK_HELP

ROOT = Path(__file__).resolve().parent.parent
READY = "Crosstalk is running at"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a live process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(checkout: Path, env: dict) -> float:
    command = [sys.executable, "manage.py", "serve", "--port", str(free_port()), "--no-runner"]
    server = subprocess.Popen(
        command, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 120
        for line in server.stdout:
            if READY in line:
                return cpu_seconds(server.pid)
            if time.monotonic() > deadline:
                break
        raise SystemExit(f"the server in {checkout} did not start")
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    folder = Path(tempfile.mkdtemp(prefix="crosstalk-serve-start-"))
    try:
        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
        env["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
        migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v0"]
        subprocess.run(migrate, cwd=args.checkout, env=env, check=True)
        if not args.quick:
            one_start(args.checkout, env)  # the first start writes the bytecode caches
        runs = [one_start(args.checkout, env) for _ in range(args.runs)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"serve, exec to listening: CPU median {statistics.median(runs):.2f} s "
        f"(min {min(runs):.2f}, max {max(runs):.2f}, {len(runs)} runs) in {args.checkout}"
    )


if __name__ == "__main__":
    main()
