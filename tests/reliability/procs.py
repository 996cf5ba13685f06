"""Real processes for the reliability tests: a private redis-server, web processes
(`manage.py serve`) and turn workers (`manage.py run_turns`) on the test database,
plus a tiny HTTP and websocket client. Everything listens on 127.0.0.1, free ports."""

import base64
import json
import os
import select
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from django.db import connection

from tests.servers import ROOT, free_port
from tests.servers import poll as wait_for

__all__ = ["ROOT", "Proc", "RedisServer", "WebSocket", "free_port", "http", "stop_all", "wait_for"]


def database_url() -> str:
    """The test database as a DATABASE_URL, so child processes see what the test commits."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] or "postgres"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host = settings["HOST"] or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{settings['PORT'] or 5432}/{settings['NAME']}"


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)  # noqa: S603
        wait_for(self.answers, "redis-server to listen")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class Proc:
    """One manage.py command in its own process group; its output goes to a file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], tmp: Path) -> None:
        self.name = name
        self.log = tmp / f"{name}.log"
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(  # noqa: S603
                [sys.executable, "manage.py", *args],
                cwd=ROOT,
                env=full_env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_line(self, text: str, timeout: float = 30) -> None:
        def seen() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} ended early:\n{self.output()}")
            return text in self.output()

        wait_for(seen, f"{self.name} to print {text!r}", timeout)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        self.process.wait(20)

    def signal(self, sig: int) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)


def stop_all(procs: list[Proc]) -> None:
    """SIGTERM to all at once (they stop in parallel), SIGKILL for whoever lingers."""
    for proc in procs:
        proc.signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.process.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def http(method: str, url: str, *, body=None, headers=None, timeout: float = 30):
    """(status, parsed JSON or text); a refused connection raises OSError."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})  # noqa: S310
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, decode(response)
    except urllib.error.HTTPError as error:
        return error.code, decode(error)


def decode(response):
    raw = response.read()
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return json.loads(raw)
    return raw.decode(errors="replace")


class WebSocket:
    """Just enough of RFC 6455 to read a page socket's text frames."""

    def __init__(self, port: int, path: str, *, cookie: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.buffer = b""
        head = self.read_until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])

    def read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def read_exactly(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self, timeout: float) -> dict | None:
        """The next text frame as JSON, or None when nothing came in time."""
        if not self.buffer and not select.select([self.sock], [], [], timeout)[0]:
            return None
        first, second = self.read_exactly(2)
        length = second & 0x7F
        if length == 126:
            length = int.from_bytes(self.read_exactly(2), "big")
        elif length == 127:
            length = int.from_bytes(self.read_exactly(8), "big")
        payload = self.read_exactly(length)
        if first & 0x0F == 0x8:
            raise ConnectionError("the server closed the socket")
        return json.loads(payload) if first & 0x0F == 0x1 else {}

    def close(self) -> None:
        self.sock.close()
