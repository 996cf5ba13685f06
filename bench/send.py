"""How fast is one send? POST /api/v1/agent/messages (no wait), and the same send as
MCP's MessageChat tool at /mcp, against a bare Django view that does one INSERT, on
one keep-alive connection, on whatever DATABASE_URL and REDIS_URL say (DATABASE_URL
unset: SQLite in var/bench.sqlite3, so the dev database is left alone).

    .venv/bin/python -m bench.send [--requests 2000] [--warmup 200] [--profile FILE]
    .venv/bin/python -m bench.send --fill 10000   # first vs last 1,000 sends of an hour
    .venv/bin/python -m bench.send --quick        # a smoke run of seconds (the suite's)

It migrates, makes a bench account with two reachable chats (the recipient
stopped, so each message is held and no turn runs), raises the peer limits (and puts
them back afterwards; bench/setup.py), starts `manage.py serve`
(Daphne) on a free loopback port with bench.settings (its own URLconf) and DEBUG=false, measures
a floor (a JSON 404, no database), the bare view, the send and the MCP send, stops the server
and drops the bench account. Each row also shows the server's CPU per request (from /proc).
With --profile only sends are made, REST's and then MCP's, inside a server that counts
each face's thread trips, threads started and statements per request and profiles each
REST send's worker-thread part (bench/profiled_serve.py; the tree needs pyinstrument)."""

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# The benches' files (SQLite databases, the server's log): var/, or BENCH_VAR, so runs
# side by side (the suite's --quick runs) each keep their own.
VAR = Path(os.environ.get("BENCH_VAR") or ROOT / "var")
SERVER_LOG = VAR / "bench-server.log"
QUICK_HELP = "a smoke run of seconds: tiny counts, the same code path; non-zero if it breaks"
BLOCK = 1000  # --fill compares the first and the last this many sends
START_SECONDS = 120  # a loaded machine (other jobs on the same cores) starts Daphne slowly


def server_env() -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings", "DEBUG": "false"}
    if not env.get("DATABASE_URL"):
        env["DATABASE_URL"] = f"sqlite:///{VAR / 'bench.sqlite3'}"
    return env


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def bench_setup(env: dict, *args: str) -> dict | None:
    """`python -m bench.setup ARGS` (bench/setup.py): its JSON answer, if any."""
    done = subprocess.run(
        [PYTHON, "-m", "bench.setup", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"bench.setup {args[0]} failed:\n{done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(env: dict, port: int, profile: str | None) -> subprocess.Popen:
    options = ["--no-runner"] if env.get("REDIS_URL") else []  # as bin/run-all
    if profile:
        serve = ["-m", "bench.profiled_serve", str(port), profile, *options]
    else:
        serve = ["manage.py", "serve", "--port", str(port), *options]
    # Its log (a warning per floor 404) goes to a file, not between the figures.
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    with SERVER_LOG.open("w") as log:
        server = subprocess.Popen([PYTHON, *serve], cwd=ROOT, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit(f"the server did not listen within {START_SECONDS} s; see {SERVER_LOG}")


def stop_server(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=10)  # as the suite's servers: nothing here needs a slow stop
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def run(conn, request, n: int) -> list[float]:
    """Send n requests one after another; latency of each, in seconds."""
    latencies = []
    for i in range(n):
        method, path, body, headers, expected = request(i)
        started = time.perf_counter()
        conn.request(method, path, body, headers)
        response = conn.getresponse()
        data = response.read()
        latencies.append(time.perf_counter() - started)
        if response.status != expected or (path == "/mcp" and mcp_failed(data)):
            raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}; see {SERVER_LOG}")
    return latencies


def send_request(account: dict):
    headers = {"Authorization": f"Bearer {account['key']}", "Content-Type": "application/json"}

    def request(i: int):
        body = {"to": account["recipient"], "text": f"bench message {i}", "wait_seconds": 0}
        return "POST", "/api/v1/agent/messages", json.dumps(body), headers, 201

    return request


def bare_request(account: dict):
    headers = {"Content-Type": "application/json"}
    path = f"/bench/insert?user={account['user']}"
    return lambda i: ("POST", path, json.dumps({"i": i}), headers, 201)


class McpSession:
    """MessageChat over streamable HTTP at /mcp, the same send as the REST row: one
    session opened once (initialize), then one tools/call per request."""

    ACCEPT = "application/json, text/event-stream"

    def __init__(self, conn, account: dict) -> None:
        self.conn, self.account = conn, account
        self.headers = {
            "Authorization": f"Bearer {account['key']}",
            "Content-Type": "application/json",
            "Accept": self.ACCEPT,
        }
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        }
        response = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        self.headers["Mcp-Session-Id"] = response.getheader("mcp-session-id")
        response.read()
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).read()

    def post(self, body: dict):
        self.conn.request("POST", "/mcp", json.dumps(body), self.headers)
        return self.conn.getresponse()

    def request(self, i: int):
        arguments = {"to": self.account["recipient"], "text": f"bench message {i}"}
        arguments["waitSeconds"] = 0
        call = {"name": "MessageChat", "arguments": arguments}
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": call}
        return "POST", "/mcp", json.dumps(body), self.headers, 200


def mcp_failed(data: bytes) -> bool:
    """A tools/call answered with an error (in band, as MCP does) is a failed send."""
    return b'"isError":true' in data or b'"error"' in data


def floor_request(i: int):
    return "GET", "/api/v1/bench-floor", None, {}, 404


def server_cpu(pid: int) -> float | None:
    """Seconds of CPU the server process has used (all its threads), from /proc: a
    figure that moves much less than wall time with what else the machine runs."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(name: str, latencies: list[float], wall: float, cpu: float | None = None) -> dict:
    ordered = sorted(latencies)
    row = {
        "name": name,
        "requests": len(latencies),
        "per_second": len(latencies) / wall,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "mean_ms": statistics.fmean(ordered) * 1000,
        "cpu_ms": None if cpu is None else cpu / len(latencies) * 1000,
    }
    shown_cpu = "" if cpu is None else f"  server CPU {row['cpu_ms']:5.2f} ms"
    print(
        f"{name:<6} {row['requests']:>6} requests  {row['per_second']:8.1f}/s  "
        f"p50 {row['p50_ms']:6.2f} ms  p99 {row['p99_ms']:6.2f} ms  mean {row['mean_ms']:6.2f} ms"
        f"{shown_cpu}"
    )
    return row


def timed(conn, request, n: int, pid: int | None = None) -> tuple:
    """The latencies, the wall time and (given the server's pid) its CPU seconds."""
    cpu_before = server_cpu(pid) if pid else None
    started = time.perf_counter()
    latencies = run(conn, request, n)
    wall = time.perf_counter() - started
    cpu_after = server_cpu(pid) if pid else None
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return latencies, wall, cpu


def fill(conn, account: dict, n: int) -> dict:
    """n sends into an empty hour: does the last block cost what the first did?"""
    latencies = run(conn, send_request(account), n)
    first = summary("first", latencies[:BLOCK], sum(latencies[:BLOCK]))
    last = summary("last", latencies[-BLOCK:], sum(latencies[-BLOCK:]))
    print(f"last/first mean latency: {last['mean_ms'] / first['mean_ms']:.2f} (target ≈ 1.00)")
    return last


def measure(port: int, account: dict, args, pid: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    send, bare = send_request(account), bare_request(account)
    if args.fill:
        return fill(conn, account, args.fill)
    mcp = McpSession(conn, account).request
    run(conn, send, args.warmup)
    run(conn, mcp, args.warmup)
    if args.profile:
        # Both faces, so the server's counters (bench/request_counters.py) cover both.
        send_row = summary("send", *timed(conn, send, args.requests, pid))
        summary("mcp", *timed(conn, mcp, args.requests, pid))
        conn.close()
        return send_row
    run(conn, bare, args.warmup)
    # The floor: a JSON 404 from the API catch-all, through the same stack, no database.
    summary("floor", *timed(conn, floor_request, args.requests, pid))
    bare_row = summary("bare", *timed(conn, bare, args.requests, pid))
    send_row = summary("send", *timed(conn, send, args.requests, pid))
    mcp_row = summary("mcp", *timed(conn, mcp, args.requests, pid))
    ratio = send_row["per_second"] / bare_row["per_second"]
    print(f"send/bare throughput: {ratio:.0%} (target ≥ 50%); send p99 target ≤ 25 ms")
    rest_mcp = send_row["per_second"] / mcp_row["per_second"]
    print(f"REST/MCP throughput: {rest_mcp:.2f} (target ≥ 1.00)")
    if send_row["cpu_ms"] and mcp_row["cpu_ms"]:
        print(f"REST/MCP server CPU per send: {send_row['cpu_ms'] / mcp_row['cpu_ms']:.2f}")
    conn.close()
    return send_row


def print_profile(path: str, client_mean_ms: float) -> None:
    totals = json.loads(Path(f"{path}.json").read_text())
    sends = totals["sends"] or 1
    inside = totals["seconds"] / sends * 1000
    print(
        f"\nper send, in the worker thread: {inside:.2f} ms, of which SQL "
        f"{totals['sql_seconds'] / sends * 1000:.2f} ms in {totals['queries'] / sends:.1f} "
        f"queries; the rest of the {client_mean_ms:.2f} ms the client saw (HTTP, ASGI, "
        f"middleware, thread hops, closing the connection): {client_mean_ms - inside:.2f} ms"
    )
    for key, seconds in totals.items():
        if key.startswith("part "):
            print(f"  {key[5:]:<16} {seconds / sends * 1000:6.2f} ms per send")
    print("\nper request, by face (REST's send, MCP's tools/call, anything else):")
    for face, counters in sorted(totals.get("faces", {}).items()):
        shown = ", ".join(f"{name} {value:.2f}" for name, value in counters.items())
        print(f"  {face:<6} {shown}")
    if Path(path).exists():
        print(Path(path).read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--fill",
        type=int,
        help="only sends: this many into an empty hour, first vs last 1,000 (e.g. 10000)",
    )
    parser.add_argument(
        "--profile", help="profile each send inside the server (pyinstrument); tree to this file"
    )
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.requests, args.warmup = 20, 5
    env = server_env()
    account = bench_setup(env, "create")  # migrated, the limits raised, the account made
    port = free_port()
    print(
        f"database {env['DATABASE_URL'].split('@')[-1]}, channel layer "
        f"{'redis' if env.get('REDIS_URL') else 'in-memory'}, port {port}"
    )
    server = start_server(env, port, args.profile)
    try:
        send_row = measure(port, account, args, server.pid)
    finally:
        stop_server(server)
        bench_setup(env, "drop", json.dumps(account["limits"]))
    if args.profile:
        print_profile(args.profile, send_row["mean_ms"])


if __name__ == "__main__":
    main()
