"""Bodies bounded in the server itself (a real `manage.py serve`): past MAX_BODY_BYTES a
request is answered 413 before its body is read, Twisted parses no body, and three
anonymous 100 MB uploads at once leave the server's memory and pages alone."""

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.servers import manage, migrate, start_server, stop_server

# Its own server on its own SQLite file, whatever the backend: run in one stage.
pytestmark = pytest.mark.embedded_only

MB = 1024 * 1024
LIMIT = 10 * MB  # the default MAX_BODY_BYTES
BOUNDARY = "crosstalk-test-boundary"


@pytest.fixture(autouse=True)
def release_db_thread_connection():
    """Overrides the suite's autouse fixture: this module opens no test database."""
    yield


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bounded")
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}")
    env.pop("REDIS_URL", None)
    env.pop("MAX_BODY_BYTES", None)
    migrate(env)
    token = manage(env, "create_api_token", "bounded", "--create-user").strip().splitlines()[-1]
    server, url = start_server(env, "--no-runner")
    try:
        yield server, int(url.rsplit(":", 1)[1]), token
    finally:
        stop_server(server)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    length = int(headers.get("Content-Length", 0))
    while len(body) < length and (chunk := sock.recv(65536)):
        body += chunk
    return int(lines[0].split()[1]), headers, body


def request_head(path: str, *, length: int | None, content_type: str, extra: str = "") -> bytes:
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
        f"{framing}\r\n{extra}\r\n"
    ).encode()


def multipart() -> str:
    return f"multipart/form-data; boundary={BOUNDARY}"


def declared(port: int, path: str, length: int) -> tuple[int, dict[str, str], bytes]:
    with connect(port) as sock:
        sock.sendall(request_head(path, length=length, content_type=multipart()))
        return read_answer(sock)


@pytest.mark.parametrize("path", ["/api/v1/messages", "/mcp", "/api/v1"])
def test_it_a_declared_oversized_body_gets_json_413_unread(site, path):
    _, port, _ = site
    status, headers, body = declared(port, path, 200 * MB)
    assert status == 413
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["code"] == "too_large"


def test_it_elsewhere_it_gets_a_plain_413_page(site):
    _, port, _ = site
    status, headers, body = declared(port, "/accounts/login/", LIMIT + 1)
    assert status == 413
    assert headers["Content-Type"].startswith("text/html")
    assert b"413 Too large" in body


def stream_chunked(sock: socket.socket, total: int) -> None:
    piece = b"x" * (64 * 1024)
    sent = 0
    try:
        while sent < total:
            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
            sent += len(piece)
        sock.sendall(b"0\r\n\r\n")
    except OSError:  # the server answered and closed: the rest is never read
        pass


def test_it_an_oversized_chunked_body_gets_413(site):
    _, port, token = site
    with connect(port) as sock:
        head = request_head(
            "/api/v1/messages",
            length=None,
            content_type="application/json",
            extra=f"Authorization: Bearer {token}\r\n",
        )
        sock.sendall(head)
        stream_chunked(sock, LIMIT + 2 * MB)
        status, headers, body = read_answer(sock)
    assert status == 413
    assert json.loads(body)["code"] == "too_large"


def test_it_a_broken_multipart_body_under_the_api_gets_json_400(site):
    _, port, token = site
    body = b"garbage, not multipart at all"  # Twisted itself answered this an empty 400
    with connect(port) as sock:
        head = request_head(
            "/api/v1/messages",
            length=len(body),
            content_type=multipart(),
            extra=f"Authorization: Bearer {token}\r\nConnection: close\r\n",
        )
        sock.sendall(head + body)
        status, headers, answer = read_answer(sock)
    assert status == 400, (headers, answer)
    assert headers.get("Content-Type") == "application/json", (headers, answer)
    assert json.loads(answer)["code"] == "invalid_input"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def page_seconds(port: int) -> float:
    started = time.perf_counter()
    with connect(port) as sock:
        sock.sendall(
            b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        status, _, _ = read_answer(sock)
    assert status == 200
    return time.perf_counter() - started


def upload(port: int, *, chunked: bool) -> None:
    """One anonymous 100 MB multipart POST, streamed from one 64 KiB buffer."""
    total = 100 * MB
    with connect(port) as sock:
        head = request_head("/", length=None if chunked else total, content_type=multipart())
        sock.sendall(head)
        if chunked:
            stream_chunked(sock, total)
            return
        piece = b"x" * (64 * 1024)
        try:
            for _ in range(total // len(piece)):
                sock.sendall(piece)
        except OSError:
            pass


def test_it_three_100_mb_uploads_at_once_leave_memory_and_pages_alone(site):
    server, port, _ = site
    for _ in range(3):
        page_seconds(port)  # warm
    before = rss_kib(server.pid)
    peak, slowest = before, 0.0
    uploads = [
        threading.Thread(target=upload, args=(port,), kwargs={"chunked": chunked})
        for chunked in (False, False, False, True, True, True)
    ]
    for thread in uploads:
        thread.start()
    while any(thread.is_alive() for thread in uploads):
        slowest = max(slowest, page_seconds(port))
        peak = max(peak, rss_kib(server.pid))
    for thread in uploads:
        thread.join()
    slowest = max(slowest, page_seconds(port))
    peak = max(peak, rss_kib(server.pid))
    print(f"RSS {before} KiB -> peak {peak} KiB; slowest page {slowest * 1000:.1f} ms")
    assert peak - before < 50 * 1024
    # Measured on a quiet machine: a few ms (docs/benchmarks.md); lenient for a loaded one.
    assert slowest < 1.0
