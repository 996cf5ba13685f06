"""Live pages at scale: ACCOUNTS accounts with PAGES open pages each (the websockets the
chat list and chat pages open), each account sending RATE messages a second over REST;
does every page of the account get the hint of each send, and how soon?

    .venv/bin/python -m bench.sockets [--accounts 200] [--pages 5] [--seconds 30]
        [--rate 1] [--senders 16] [--web-processes 1]
    .venv/bin/python -m bench.sockets --quick    # a smoke run of seconds: 3 accounts × 2 pages

DATABASE_URL unset: SQLite in var/bench-sockets.sqlite3 and the in-process channel
layer, one `manage.py serve` (Daphne), as `make run` starts it. With DATABASE_URL and
REDIS_URL, --web-processes N starts N servers (as bin/run-all does) and spreads each
account's pages and the sends over them, so most hints cross Redis.

It migrates, raises the peer limits (and puts them back afterwards), makes the accounts
(each: a sender chat with its agent key, a stopped recipient so every message is held
and no turn runs, a logged-in session), starts the server(s), then runs the
clients in another process (bench/socket_clients.py) while it samples each server's
RSS. Figures: frames lost (every page of the account must get each send's hint), p99
from the send's HTTP answer to the hint on each page (target ≤ 10 ms), the largest
server RSS (target < 500 MB). Then it stops the servers and drops the accounts."""

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

import django

from bench.send import PYTHON, QUICK_HELP, ROOT, VAR, start_server, stop_server

PREFIX = "bench-sockets-"


def server_env() -> dict:
    env = {**os.environ, "DEBUG": "false", "DJANGO_SETTINGS_MODULE": "crosstalk.settings"}
    if not env.get("DATABASE_URL"):
        env["DATABASE_URL"] = f"sqlite:///{VAR / 'bench-sockets.sqlite3'}"
    return env


def create_account(n: int) -> dict:
    """As bench.setup: both chats ran once (reachable); the recipient is stopped."""
    from django.db import transaction
    from django.test import Client

    from accounts.models import User
    from chats.actions import check_create_chat, do_mark_turn_done, do_prompt, do_start_turn
    from chats.inputs import ChatCreate
    from peers.actions import check_stop_chat

    user = User.objects.create_user(f"{PREFIX}{n}")
    sender, key = check_create_chat(user, spec=ChatCreate(name="sender", peers=True))
    recipient, _ = check_create_chat(user, spec=ChatCreate(name="recipient", peers=True))
    turns = []
    for chat in (sender, recipient):
        with transaction.atomic():
            turns.append(do_start_turn(do_prompt(chat, text="get ready"), chat, worker="bench"))
    do_mark_turn_done(turns[0], final_text="ready")
    check_stop_chat(recipient)
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    return {"key": key, "sender": sender.pk, "recipient": recipient.pk, "cookie": cookie}


def drop_accounts() -> None:
    from accounts.models import User

    User.objects.filter(username__startswith=PREFIX).delete()


def setup_main(argv: list[str]) -> None:
    """Inside Django: `python -m bench.sockets setup N` migrates, raises the limits and
    prints the accounts and the limits as they were, as JSON; `drop LIMITS` drops the
    accounts and puts LIMITS back."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    from bench.setup import raise_limits
    from peers.actions import do_set_limits

    if argv[0] == "setup":
        limits = raise_limits()
        drop_accounts()
        accounts = [create_account(n) for n in range(int(argv[1]))]
        print(json.dumps({"limits": limits, "accounts": accounts}))
    else:
        drop_accounts()
        do_set_limits(json.loads(argv[1]))


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used (load-independent, unlike latency)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sample_rss(pids: list[int], peaks: dict, stop: threading.Event) -> None:
    while not stop.wait(0.5):
        for pid in pids:
            peaks[pid] = max(peaks.get(pid, 0.0), rss_mb(pid))


def run_clients(plan: dict, servers: list) -> tuple[dict, dict]:
    plan_file = VAR / "bench-sockets-plan.json"
    plan_file.parent.mkdir(exist_ok=True)
    plan_file.write_text(json.dumps(plan))
    pids = [server.pid for server in servers]
    before = {pid: rss_mb(pid) for pid in pids}
    cpu_before = {pid: cpu_seconds(pid) for pid in pids}
    peaks: dict = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample_rss, args=(pids, peaks, stop))
    sampler.start()
    try:
        done = subprocess.run(
            [PYTHON, "-m", "bench.socket_clients", str(plan_file)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
    finally:
        stop.set()
        sampler.join()
    cpu = {pid: cpu_seconds(pid) - cpu_before[pid] for pid in pids}
    if done.returncode != 0:
        raise SystemExit("the clients failed")
    return json.loads(done.stdout.splitlines()[-1]), {"before": before, "peak": peaks, "cpu": cpu}


def print_results(row: dict, rss: dict) -> None:
    for key, value in row.items():
        shown = f"{value:.2f}" if isinstance(value, float) else value
        print(f"  {key:<22} {shown}")
    for pid, peak in rss["peak"].items():
        print(f"  server {pid} RSS        {rss['before'][pid]:.1f} MB idle → {peak:.1f} MB peak")
    # Handshakes included: compare runs with the same accounts, pages and rate.
    cpu = sum(rss["cpu"].values())
    per_send = 1000 * cpu / row["sends"] if row["sends"] else 0.0
    print(f"  servers' CPU           {cpu:.1f} s in all, {per_send:.1f} ms per send")
    worst = max(rss["peak"].values(), default=0.0)
    print(
        f"frames lost {row['frames_lost']} (target 0); answer→frame p99 "
        f"{row['frame_p99_ms']:.2f} ms (target ≤ 10 ms); peak RSS {worst:.1f} MB "
        "(target < 500 MB)"
    )


def start_servers(env: dict, count: int) -> tuple[list, list[int]]:
    from bench.send import free_port

    servers, ports = [], []
    for _ in range(count):
        port = free_port()
        servers.append(start_server(env, port, None))
        ports.append(port)
    return servers, ports


def main() -> None:
    if sys.argv[1:2] in (["setup"], ["drop"]):
        return setup_main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rate", type=float, default=1.0, help="sends a second, per account")
    parser.add_argument("--senders", type=int, default=16, help="keep-alive REST connections")
    parser.add_argument("--web-processes", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.accounts, args.pages, args.seconds, args.rate, args.senders = 3, 2, 1, 2, 2
    env = server_env()
    if args.web_processes > 1 and not env.get("REDIS_URL"):
        raise SystemExit("--web-processes > 1 needs DATABASE_URL and REDIS_URL")
    # 1,000 sockets: each server and the clients need more than the usual 1,024 files.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    made = time.monotonic()
    setup = [PYTHON, "-m", "bench.sockets", "setup", str(args.accounts)]
    made_here = json.loads(subprocess.check_output(setup, cwd=ROOT, env=env))
    accounts, saved = made_here["accounts"], made_here["limits"]
    print(f"made {len(accounts)} accounts in {time.monotonic() - made:.1f} s")
    servers, ports = start_servers(env, args.web_processes)
    layer = "redis" if env.get("REDIS_URL") else "in-memory"
    print(f"database {env['DATABASE_URL'].split('@')[-1]}, layer {layer}, ports {ports}")
    plan = vars(args) | {"ports": ports, "accounts": accounts}
    try:
        row, rss = run_clients(plan, servers)
    finally:
        for server in servers:
            stop_server(server)
        drop = [PYTHON, "-m", "bench.sockets", "drop", json.dumps(saved)]
        subprocess.run(drop, cwd=ROOT, env=env, check=False)
    print_results(row, rss)
    if args.quick and (row["frames_lost"] or row["send_errors"] or not row["sends"]):
        raise SystemExit("the quick run lost frames, failed sends or made none")


if __name__ == "__main__":
    main()
