"""How long does a hook take with nothing pending? The http endpoint
(POST /api/v1/agent/hooks/claude-code, PostToolUse, on one keep-alive connection)
and the whole hook command (bin/crosstalk-hook: a new process, its stdin, one POST,
its answer), each against `manage.py serve` on a free loopback port.

    .venv/bin/python -m bench.hooks [--requests 1000] [--runs 100] [--warmup 50]
    .venv/bin/python -m bench.hooks --sessions 50 [--hook-rate 20] [--send-rate 10]
        [--seconds 20]
    .venv/bin/python -m bench.hooks --quick [--sessions 3]   # a smoke run of seconds

DATABASE_URL unset: SQLite in var/bench-hooks.sqlite3. It makes an account with one
Claude Code chat in an attached turn (its UserPromptSubmit) and measures a floor (a
JSON 404), the endpoint (keep-alive, then a new connection per call), the bare
interpreter start (`python -I -S -c pass`) and the command; then it stops the server
and drops the account. Targets: endpoint p50 ≤ 20 ms, command p50 ≤ 50 ms.

With --sessions N: N attached sessions post hooks at --hook-rate a second in all while
REST sends go out at --send-rate, with nothing pending and with messages pending for the
sessions (bench/hook_load.py). Targets: hook p99 ≤ 25 ms; sends as fast as alone."""

import argparse
import http.client
import json
import os
import shlex
import statistics
import subprocess
import time

from bench import hook_load
from bench.send import (
    PYTHON,
    QUICK_HELP,
    ROOT,
    VAR,
    bench_setup,
    floor_request,
    free_port,
    run,
    start_server,
    stop_server,
    summary,
    timed,
)

USER = "bench-hooks"
SESSION = "bench-session"


def server_env() -> dict:
    env = {**os.environ, "DEBUG": "false"}
    if not env.get("DATABASE_URL"):
        env["DATABASE_URL"] = f"sqlite:///{VAR / 'bench-hooks.sqlite3'}"
    return env


def make_chat(conn, token: str) -> str:
    """A Claude Code chat, and its agent key; the prompt hook opens an attached turn."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    body = {"name": "bench-claude", "agent": "claude-code", "peers": True}
    conn.request("POST", "/api/v1/chats", json.dumps(body), headers)
    key = json.loads(conn.getresponse().read())["agent_key"]
    prompt = payload("UserPromptSubmit", prompt="bench")
    conn.request("POST", "/api/v1/agent/hooks/claude-code", json.dumps(prompt), auth(key))
    conn.getresponse().read()
    return key


def auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def payload(event: str, **fields) -> dict:
    return {"session_id": SESSION, "hook_event_name": event, "cwd": str(ROOT), **fields}


def hook_request(key: str):
    body = json.dumps(payload("PostToolUse", tool_name="Bash", tool_input={"command": "true"}))
    return lambda i: ("POST", "/api/v1/agent/hooks/claude-code", body, auth(key), 200)


def process_times(argv: list[str], stdin: str, env: dict, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - started)
        if done.returncode != 0 or done.stderr:
            raise SystemExit(f"{argv[0]} failed: {done.stderr}")
    return times


def fresh_connections(port: int, request, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        run(conn, request, 1)
        conn.close()
        times.append(time.perf_counter() - started)
    return times


def print_times(name: str, times: list[float]) -> float:
    p50 = statistics.median(times) * 1000
    p95 = sorted(times)[int(len(times) * 0.95) - 1] * 1000
    print(f"{name:<8} {len(times):>6} runs      p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
    return p50


def measure(port: int, made: dict, args) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    key = make_chat(conn, made["token"])
    hook = hook_request(key)
    run(conn, hook, args.warmup)
    summary("floor", *timed(conn, floor_request, args.requests))
    endpoint = summary("hook", *timed(conn, hook, args.requests))
    conn.close()
    # As the command makes it: one new connection per call.
    print_times("hook-new", fresh_connections(port, hook, args.runs))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env |= {"CROSSTALK_URL": f"http://127.0.0.1:{port}", "CROSSTALK_KEY": key}
    stdin = hook(0)[2]
    hook_argv = shlex.split(made["hook_command"])  # exactly as the generated configs run it
    bare = [hook_argv[0], "-I", "-S", "-c", "pass"]
    print_times("python", process_times(bare, "", env, args.runs))
    command = print_times("command", process_times(hook_argv, stdin, env, args.runs))
    print(
        f"endpoint p50 {endpoint['p50_ms']:.2f} ms (target ≤ 20 ms); "
        f"command p50 {command:.2f} ms (target ≤ 50 ms)"
    )


def at_scale(env: dict, args) -> None:
    """--sessions: the peer limits raised (and put back), bench.setup's account."""
    setup = [PYTHON, "-m", "bench.hook_load", "setup", str(args.sessions)]
    plan = json.loads(subprocess.check_output(setup, cwd=ROOT, env=env))
    port = free_port()
    print(f"database {env['DATABASE_URL'].split('@')[-1]}, port {port}")
    server = start_server(env, port, None)
    try:
        hook_load.measure(port, plan, args)
    finally:
        stop_server(server)
        bench_setup(env, "drop", json.dumps(plan["limits"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--sessions", type=int, help="attached sessions posting hooks at once")
    parser.add_argument("--hook-rate", type=float, default=20, help="hooks a second, in all")
    parser.add_argument("--hook-workers", type=int, default=8, help="keep-alive connections")
    parser.add_argument("--send-rate", type=float, default=10, help="REST sends a second")
    parser.add_argument("--seconds", type=float, default=20, help="each phase")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.requests, args.runs, args.warmup = 20, 3, 5
        args.seconds, args.hook_rate, args.send_rate = 1, 20, 5
    env = server_env()
    if args.sessions:
        return at_scale(env, args)
    made = bench_setup(env, "token", USER)  # migrated, the account afresh, its token
    port = free_port()
    print(f"database {env['DATABASE_URL'].split('@')[-1]}, port {port}")
    server = start_server(env, port, None)
    try:
        measure(port, made, args)
    finally:
        stop_server(server)
        bench_setup(env, "drop-user", USER)


if __name__ == "__main__":
    main()
