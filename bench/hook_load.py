"""Hooks at scale, for bench/hooks.py --sessions: N attached Claude Code sessions post
their hooks (UserPromptSubmit, then PreToolUse/PostToolUse twice, then Stop, again and
again) at HOOK_RATE a second in all, while REST sends go out at SEND_RATE a second.

Phases, each SECONDS long: sends alone; hooks alone; hooks with sends to a stopped
chat (nothing pending for the sessions); hooks with sends to the sessions themselves
(messages pending: the next PostToolUse or Stop delivers them). Each request is timed
from writing it to reading its whole answer."""

import asyncio
import itertools
import json
import os
import statistics
import time

import django

from bench.socket_clients import Connection, percentile

HOOKS = "/api/v1/agent/hooks/claude-code"
CYCLE = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "Stop"]


def setup(count: int) -> dict:
    """Inside Django: migrated, the limits raised (their values before under "limits"),
    bench.setup's account (a sender, a stopped recipient) and `count` attached Claude
    Code chats (no folder: the person runs them; nothing runs here)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    from accounts.models import User
    from bench.setup import BENCH_USER, create, raise_limits
    from chats.actions import check_create_chat
    from chats.inputs import ChatCreate

    limits = raise_limits()
    account = create() | {"limits": limits}
    user = User.objects.get(username=BENCH_USER)
    sessions = []
    for n in range(count):
        spec = ChatCreate(name=f"session-{n}", agent="claude-code", peers=True)
        chat, key = check_create_chat(user, spec=spec)
        sessions.append({"chat": chat.pk, "key": key, "session_id": f"bench-session-{n}"})
    return account | {"sessions": sessions}


def payload(session: dict, event: str) -> dict:
    body = {"session_id": session["session_id"], "hook_event_name": event, "cwd": "/tmp"}  # noqa: S108
    if event == "UserPromptSubmit":
        body["prompt"] = "carry on"
    elif event in ("PreToolUse", "PostToolUse"):
        body |= {"tool_name": "Bash", "tool_input": {"command": "true"}}
        if event == "PostToolUse":
            body["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    else:
        body |= {"stop_hook_active": False, "last_assistant_message": "done"}
    return body


async def attach_all(port: int, plan: dict) -> None:
    """Each session starts and is prompted: an attached turn is open."""
    conn = Connection(port)
    for session in plan["sessions"]:
        for event in ("SessionStart", "UserPromptSubmit"):
            status, body = await conn.post(HOOKS, payload(session, event), session["key"])
            if status != 200:
                raise SystemExit(f"{event}: {status} {body[:300]!r}")
    conn.close()


async def paced(rate: float, seconds: float, make_job, queue: asyncio.Queue, workers: int):
    """Open loop: a job every 1/rate s, whether or not the answers keep up."""
    start = time.monotonic()
    for n in range(int(rate * seconds)):
        if (wait := start + n / rate - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        queue.put_nowait(make_job(n))
    for _ in range(workers):
        queue.put_nowait(None)


async def work(port: int, queue: asyncio.Queue, row: dict) -> None:
    conn = Connection(port)
    while (job := await queue.get()) is not None:
        path, body, key, expected = job
        started = time.monotonic()
        status, answer = await conn.post(path, body, key)
        row["ms"].append((time.monotonic() - started) * 1000)
        row["by_event"].setdefault(body.get("hook_event_name", "send"), []).append(row["ms"][-1])
        if status != expected:
            row["errors"].append(f"{status} {answer[:200]!r}")
        elif b"peer-message" in answer:
            row["delivered"] += 1
    conn.close()  # now, not whenever the collector finds it after the loop has ended


async def load(port: int, rate: float, seconds: float, make_job, workers: int) -> dict:
    row = {"ms": [], "errors": [], "delivered": 0, "by_event": {}}
    if rate <= 0:
        return row
    queue: asyncio.Queue = asyncio.Queue()
    pace = paced(rate, seconds, make_job, queue, workers)
    await asyncio.gather(pace, *(work(port, queue, row) for _ in range(workers)))
    return row


def hook_jobs(plan: dict):
    sessions = plan["sessions"]
    steps = {s["chat"]: itertools.cycle(CYCLE[1:] + CYCLE[:1]) for s in sessions}

    def job(n: int):
        session = sessions[n % len(sessions)]
        return HOOKS, payload(session, next(steps[session["chat"]])), session["key"], 200

    return job


def send_jobs(plan: dict, *, to_sessions: bool):
    def job(n: int):
        sessions = plan["sessions"]
        to = sessions[n % len(sessions)]["chat"] if to_sessions else plan["recipient"]
        body = {"to": to, "text": f"bench {n}", "wait_seconds": 0}
        return "/api/v1/agent/messages", body, plan["key"], 201

    return job


def line(name: str, row: dict) -> str:
    if not row["ms"]:
        return f"  {name:<6} —"
    return (
        f"  {name:<6} {len(row['ms']):>5} requests  p50 {statistics.median(row['ms']):6.2f} ms  "
        f"p99 {percentile(row['ms'], 0.99):7.2f} ms  errors {len(row['errors'])}"
        + (f"  delivered in {row['delivered']}" if name == "hooks" else "")
        + (f"  first error {row['errors'][0]}" if row["errors"] else "")
        + (
            "".join(event_line(e, ms) for e, ms in sorted(row["by_event"].items()))
            if name == "hooks"
            else ""
        )
    )


def event_line(event: str, ms: list[float]) -> str:
    return (
        f"\n    {event:<16} p50 {statistics.median(ms):6.2f} ms  p99 {percentile(ms, 0.99):7.2f} ms"
    )


async def phases(port: int, plan: dict, args) -> int:
    """Runs the four phases; the number of requests that failed."""
    await attach_all(port, plan)
    failed = 0
    hooks_at = (args.hook_rate, args.seconds, hook_jobs(plan), args.hook_workers)
    for name, with_hooks, send_rate, to_sessions in (
        ("sends alone", False, args.send_rate, False),
        ("hooks alone, nothing pending", True, 0, False),
        ("hooks + sends to a stopped chat (nothing pending)", True, args.send_rate, False),
        ("hooks + sends to the sessions (messages pending)", True, args.send_rate, True),
    ):
        sends_at = (send_rate, args.seconds, send_jobs(plan, to_sessions=to_sessions), 4)
        hooks = load(port, *hooks_at) if with_hooks else load(port, 0, 0, None, 0)
        hook_row, send_row = await asyncio.gather(hooks, load(port, *sends_at))
        print(f"{name}:\n{line('hooks', hook_row)}\n{line('sends', send_row)}", flush=True)
        failed += len(hook_row["errors"]) + len(send_row["errors"])
    return failed


def measure(port: int, plan: dict, args) -> None:
    print(
        f"{len(plan['sessions'])} attached sessions, hooks {args.hook_rate}/s in all, "
        f"sends {args.send_rate}/s, {args.seconds:.0f} s a phase "
        "(targets: hook p99 ≤ 25 ms; sends as fast as alone)"
    )
    if failed := asyncio.run(phases(port, plan, args)):
        raise SystemExit(f"{failed} requests failed")


if __name__ == "__main__":
    import sys

    print(json.dumps(setup(int(sys.argv[2]))))
