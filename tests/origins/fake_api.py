"""A small recording HTTP server on 127.0.0.1: the base of the fake GitHub and Slack APIs.

A subclass names its routes; every request is recorded (method, path, headers, JSON
body) whatever it is answered, and `fail_next(n)` makes the next n calls answer 500,
so a test can watch the retry loop."""

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Call:
    method: str
    path: str
    headers: dict
    body: dict | None
    raw: bytes = field(default=b"", repr=False)


# A route answers (status, JSON body) for a call and the path's named groups.
Route = tuple[str, re.Pattern, object]


class FakeApi:
    routes: list[Route] = []

    def __init__(self):
        self.calls: list[Call] = []
        self._lock = threading.Lock()
        self._failures = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def fail_next(self, count: int) -> None:
        with self._lock:
            self._failures = count

    def answer(self, call: Call) -> tuple[int, dict]:
        with self._lock:
            self.calls.append(call)
            if self._failures:
                self._failures -= 1
                return 500, {"message": "the fake was told to fail"}
        for method, pattern, handler in self.routes:
            found = pattern.fullmatch(call.path.split("?")[0])
            if method == call.method and found:
                return handler(self, call, **found.groupdict())
        return 404, {"message": "Not Found"}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self._answer("GET")

    def do_POST(self):
        self._answer("POST")

    def _answer(self, method: str) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        call = Call(method, self.path, dict(self.headers.items()), _json(raw, self.headers), raw)
        status, body = self.server.fake.answer(call)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # keep the test output quiet
        pass


def _json(raw: bytes, headers) -> dict | None:
    kind = headers.get("Content-Type", "")
    if "json" in kind:
        return json.loads(raw or b"null")
    if "x-www-form-urlencoded" in kind:
        from urllib.parse import parse_qsl

        return dict(parse_qsl(raw.decode()))
    return None
