"""What AGENT_SANDBOX=bwrap costs per turn: a command turn's process (`sh -c cat`, the
prompt on stdin, its stdout read back) built by agents.launch and run by
agents.process, without the sandbox and under bubblewrap, one after the other.

    .venv/bin/python -m bench.sandbox [--runs 200] [--warmup 20] [--command "sh -c cat"]
    .venv/bin/python -m bench.sandbox --quick    # two turns each way, a smoke run

The difference of the medians is what the jail adds to every hosted turn (a real CLI
turn takes seconds of model calls on top). Pass `--command "/path/to/claude --version"`
to time a CLI's own start inside and outside the jail."""

import argparse
import asyncio
import os
import shlex
import statistics
import tempfile
import time
from pathlib import Path

import django

from bench.send import QUICK_HELP


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()


async def one_turn(argv: list[str], folder: Path) -> float:
    from agents.launch import Launch, build
    from agents.process import run_process

    said: list[str] = []

    async def on_line(line: str) -> None:
        said.append(line)

    async def running() -> bool:
        return True

    started = time.perf_counter()
    spec = build(Launch(argv, cwd=str(folder), stdin="hello\n", private=folder / "private"))
    outcome = await run_process(spec, on_line=on_line, timeout=60, still_running=running)
    elapsed = time.perf_counter() - started
    if outcome.exit_code != 0:
        raise SystemExit(f"{argv} failed ({outcome.exit_code}): {outcome.stderr_tail}")
    return elapsed


async def measure(argv: list[str], sandbox: str, runs: int, warmup: int) -> list[float]:
    from django.conf import settings

    settings.AGENT_SANDBOX = sandbox
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        folder = Path(tmp)
        (folder / "private" / "home").mkdir(parents=True)  # what the runner's set-up makes
        for _ in range(warmup):
            await one_turn(argv, folder)
        return [await one_turn(argv, folder) for _ in range(runs)]


def line(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[int(len(ms) * 0.95) - 1]
    return f"{name:<8} p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--command", default="sh -c cat")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.runs, args.warmup = 2, 0
    setup()
    argv = shlex.split(args.command)
    plain = asyncio.run(measure(argv, "none", args.runs, args.warmup))
    jailed = asyncio.run(measure(argv, "bwrap", args.runs, args.warmup))
    print(f"load {os.getloadavg()[0]:.1f}, command: {args.command}")
    print(line("none", plain))
    print(line("bwrap", jailed))
    added = statistics.median(jailed) - statistics.median(plain)
    print(f"the sandbox adds {added * 1000:.1f} ms per turn (p50)")


if __name__ == "__main__":
    main()
