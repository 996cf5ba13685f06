"""The client side of bench/sockets.py, run in its own process: every page's websocket
and a pool of REST senders, on one asyncio loop; prints one JSON line of results.

    python -m bench.socket_clients PLAN.json

The plan: {"ports": [...], "pages": N, "seconds": S, "rate": R, "senders": K,
"accounts": [{"key", "sender", "recipient", "cookie"}, ...]}."""

import asyncio
import json
import resource
import statistics
import sys
import time
from collections import defaultdict

import websockets

SETTLE_SECONDS = 10  # after the last send: how long frames may still arrive


class Frames:
    """Arrival times of the "message" hints, by message id, one per socket."""

    def __init__(self) -> None:
        self.arrived: dict[str, dict[int, float]] = defaultdict(dict)
        self.other = 0
        self.changed = asyncio.Event()

    def record(self, socket_id: int, text: str) -> None:
        now = time.monotonic()
        hint = json.loads(text)
        if hint.get("kind") == "message" and hint.get("message"):
            self.arrived[hint["message"]].setdefault(socket_id, now)
            self.changed.set()
        else:
            self.other += 1


def page_path(account: dict, page: int) -> str:
    """Page 0 is the chat list; the others alternate between the account's two chats."""
    if page == 0:
        return "/ws/chats/"
    return f"/ws/chats/{account['sender'] if page % 2 else account['recipient']}/"


async def open_page(plan: dict, account: dict, page: int, socket_id: int):
    """As live.js does: a refused handshake (Daphne gives up on one the app has not
    accepted within 5 s, on a busy machine) is tried again after a pause."""
    for attempt in range(6):
        try:
            return await connect_page(plan, account, page, socket_id)
        except (websockets.InvalidHandshake, OSError):
            if attempt == 5:
                raise
            plan["handshake_retries"] = plan.get("handshake_retries", 0) + 1
            await asyncio.sleep(0.5 * 2**attempt)


async def connect_page(plan: dict, account: dict, page: int, socket_id: int):
    port = plan["ports"][(socket_id) % len(plan["ports"])]
    origin = f"http://127.0.0.1:{port}"
    headers = {"Cookie": f"sessionid={account['cookie']}"}
    return await websockets.connect(
        f"ws://127.0.0.1:{port}{page_path(account, page)}",
        origin=origin,
        additional_headers=headers,
        open_timeout=60,
        ping_interval=None,  # the pages send no pings either; keep the loop for frames
        max_queue=None,
    )


async def read_page(ws, socket_id: int, frames: Frames) -> None:
    try:
        async for text in ws:
            frames.record(socket_id, text)
    except websockets.ConnectionClosed:
        pass


async def open_all(plan: dict, frames: Frames) -> tuple[list, dict[int, list[int]]]:
    """Every page, at most 10 handshakes at once; socket ids by account."""
    gate = asyncio.Semaphore(10)
    by_account: dict[int, list[int]] = defaultdict(list)
    jobs = []
    for index, account in enumerate(plan["accounts"]):
        for page in range(plan["pages"]):
            socket_id = len(jobs)
            by_account[index].append(socket_id)
            jobs.append((account, page, socket_id))

    async def one(account, page, socket_id):
        async with gate:
            return await open_page(plan, account, page, socket_id)

    sockets = await asyncio.gather(*(one(*job) for job in jobs))
    return sockets, by_account


async def read_response(reader) -> tuple[int, bytes]:
    status = int((await reader.readline()).split()[1])
    length, chunked = 0, False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value)
        elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if not chunked:
        return status, await reader.readexactly(length)
    body = b""
    while size := int((await reader.readline()).strip(), 16):
        body += await reader.readexactly(size)
        await reader.readline()
    await reader.readline()
    return status, body


class Connection:
    """One keep-alive HTTP connection, one request at a time (bench.hook_load uses it too)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader = self.writer = None

    async def post(self, path: str, payload: dict, key: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        body = json.dumps(payload).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        return await read_response(self.reader)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Sender(Connection):
    async def send(self, account: dict, text: str) -> tuple[int, bytes]:
        body = {"to": account["recipient"], "text": text, "wait_seconds": 0}
        return await self.post("/api/v1/agent/messages", body, account["key"])


async def send_all(plan: dict, queue: asyncio.Queue, results: dict) -> None:
    """K senders take (account index, due time) jobs; each answer is timed."""

    async def worker(sender: Sender) -> None:
        while (job := await queue.get()) is not None:
            index, due = job
            started = time.monotonic()
            if started > results["ends"]:  # the server fell behind: the run stops on time
                results["skipped"] += 1
                continue
            status, body = await sender.send(plan["accounts"][index], f"bench {due:.3f}")
            answered = time.monotonic()
            if status != 201:
                results["errors"].append(f"{status} {body[:200]!r}")
                continue
            message_id = json.loads(body)["id"]
            results["answers"][message_id] = (index, answered)
            results["send_ms"].append((answered - started) * 1000)
            results["late_ms"].append(max(0.0, started - due) * 1000)

    ports = plan["ports"]
    senders = [Sender(ports[i % len(ports)]) for i in range(plan["senders"])]
    await asyncio.gather(*(worker(sender) for sender in senders))


async def schedule(plan: dict, queue: asyncio.Queue, results: dict) -> float:
    """Each account sends `rate` messages a second, the accounts spread over the second."""
    accounts, rate = len(plan["accounts"]), plan["rate"]
    total = int(plan["seconds"] * rate * accounts)
    start = time.monotonic()
    results["ends"] = start + plan["seconds"] + 2
    for n in range(total):
        due = start + n / (rate * accounts)
        if (wait := due - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        queue.put_nowait((n % accounts, due))
    for _ in range(plan["senders"]):
        queue.put_nowait(None)
    return start


async def settle(frames: Frames, answers: dict, expected_per: int) -> None:
    """Wait until every answered send reached all of its account's pages, or time runs out."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        missing = sum(expected_per - len(frames.arrived.get(m, ())) for m in answers)
        if missing == 0:
            return
        frames.changed.clear()
        try:
            await asyncio.wait_for(frames.changed.wait(), deadline - time.monotonic())
        except TimeoutError:
            return


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


def report(plan, frames: Frames, results: dict, by_account, wall: float) -> dict:
    latencies, lost, early = [], 0, 0
    for message_id, (index, answered) in results["answers"].items():
        arrived = frames.arrived.get(message_id, {})
        for socket_id in by_account[index]:
            if socket_id not in arrived:
                lost += 1
                continue
            delay = arrived[socket_id] - answered
            early += delay < 0
            latencies.append(max(0.0, delay) * 1000)
    sends = len(results["answers"])
    return {
        "sockets": sum(len(ids) for ids in by_account.values()),
        "sends": sends,
        "sends_not_made": results["skipped"],
        "send_errors": len(results["errors"]),
        "first_errors": results["errors"][:3],
        "sends_per_second": sends / wall,
        "send_p50_ms": statistics.median(results["send_ms"]) if sends else None,
        "send_p99_ms": percentile(results["send_ms"], 0.99),
        "late_p99_ms": percentile(results["late_ms"], 0.99),
        "frames_expected": sends * plan["pages"],
        "frames_lost": lost,
        "frames_before_answer": early,
        "frame_p50_ms": statistics.median(latencies) if latencies else None,
        "frame_p99_ms": percentile(latencies, 0.99),
        "frame_max_ms": max(latencies, default=None),
        "other_frames": frames.other,
    }


async def main_async(plan: dict) -> dict:
    frames = Frames()
    opened = time.monotonic()
    sockets, by_account = await open_all(plan, frames)
    retries = plan.get("handshake_retries", 0)
    print(
        f"opened {len(sockets)} sockets in {time.monotonic() - opened:.1f} s "
        f"({retries} handshakes tried again)",
        file=sys.stderr,
    )
    readers = [asyncio.create_task(read_page(ws, i, frames)) for i, ws in enumerate(sockets)]
    results = {"answers": {}, "errors": [], "send_ms": [], "late_ms": [], "skipped": 0}
    queue: asyncio.Queue = asyncio.Queue()
    sending = asyncio.create_task(send_all(plan, queue, results))
    start = await schedule(plan, queue, results)
    await sending
    wall = time.monotonic() - start
    await settle(frames, results["answers"], plan["pages"])
    closed = sum(ws.close_code is not None for ws in sockets)
    row = report(plan, frames, results, by_account, wall) | {"sockets_closed_early": closed}
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    for reader in readers:
        reader.cancel()
    return row


def main() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with open(sys.argv[1]) as file:
        plan = json.load(file)
    print(json.dumps(asyncio.run(main_async(plan))))


if __name__ == "__main__":
    main()
