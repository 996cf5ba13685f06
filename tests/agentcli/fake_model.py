"""A fake model server on 127.0.0.1 for the real agent CLIs, scripted by the prompt.

    with FakeModel() as fake:
        env = claude_env(fake, home)          # see clis.py
        ...
        assert fake.saw("hello-123")

It speaks the Anthropic Messages API, the OpenAI Responses API and the Gemini API,
all with SSE, and records every request in `fake.requests`. See README.md.
"""

import gzip
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.agentcli import script
from tests.agentcli.wire import Answer
from tests.agentcli.wire.anthropic import Anthropic
from tests.agentcli.wire.gemini import Gemini
from tests.agentcli.wire.responses import Responses

_GEMINI_PATH = re.compile(r"/models/([^/:]+):(streamGenerateContent|generateContent)")
# How long a paced answer's last piece waits for its release at most (a test that failed).
RELEASE_SECONDS = 90


@dataclass
class Request:
    api: str  # "anthropic", "openai", "gemini" or "other"
    method: str
    path: str
    headers: dict
    body: dict | None
    answer: Answer | None = None  # what the fake answered, for model calls
    raw: str = field(default="", repr=False)


@dataclass
class Pace:
    """A streamed text answer sent in `chunks` deltas, `pause` seconds apart, its last
    piece only once `release` is set (see FakeModel.stream_next)."""

    chunks: int
    pause: float
    release: threading.Event = field(default_factory=threading.Event)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class FakeModel:
    """Start with `start()` (or `with`), stop with `stop()`; `url` is the base URL."""

    def __init__(self):
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._failures: list[int] = []
        self._holds: list[float] = []
        self._paces: list[Pace] = []
        # Set while a held model call waits (see hold_next).
        self.holding = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self
        # A short poll interval: stop() waits for one, at every test's teardown.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeModel":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def fail_next(self, status: int = 500, times: int = 1) -> None:
        """Answer the next `times` model calls with this HTTP error status."""
        with self._lock:
            self._failures.extend([status] * times)

    def hold_next(self, seconds: float) -> None:
        """Answer the next model call only after `seconds` (`holding` is set meanwhile):
        time for a message to arrive while the CLI waits for its model."""
        with self._lock:
            self._holds.append(seconds)

    def stream_next(self, chunks: int, pause: float = 0.2) -> threading.Event:
        """Stream the next final text (Anthropic, a streamed call with tools) in `chunks`
        text deltas, `pause` seconds apart; the last is sent only once the event returned
        is set (or after RELEASE_SECONDS): a test sees the answer before it is complete."""
        pace = Pace(chunks, pause)
        with self._lock:
            self._paces.append(pace)
        return pace.release

    def take_pace(self, body: dict, answer: Answer) -> Pace | None:
        if not (answer.text and body.get("stream") and body.get("tools")):
            return None
        with self._lock:
            return self._paces.pop(0) if self._paces else None

    def take_hold(self) -> float:
        with self._lock:
            return self._holds.pop(0) if self._holds else 0.0

    def take_failure(self) -> int | None:
        with self._lock:
            return self._failures.pop(0) if self._failures else None

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def requests_for(self, api: str) -> list[Request]:
        """Requests of one API ("anthropic", "openai", "gemini"), oldest first."""
        with self._lock:
            return [r for r in self.requests if r.api == api]

    def model_calls(self, api: str | None = None) -> list[Request]:
        """Requests the fake answered as the model (tool calls or text)."""
        with self._lock:
            return [r for r in self.requests if r.answer and (api is None or r.api == api)]

    def last_user_text(self, api: str | None = None) -> str:
        """The latest user-written text of the latest model call (hook contexts skipped)."""
        return script.last_user_text(self._latest_events(api))

    def tool_results(self, api: str | None = None) -> list[str]:
        """The tool results, as text, that the latest model call (of this API) carried:
        what the model was shown of each call, oldest first."""
        return [event.text for event in self._latest_events(api) if event.kind == "result"]

    def _latest_events(self, api: str | None) -> list[script.Event]:
        calls = self.model_calls(api)
        return _dialect(calls[-1].api).events(calls[-1].body) if calls else []

    def saw(self, text: str, api: str | None = None) -> bool:
        """Whether any request body (of this API) contained `text` in one of its strings."""
        with self._lock:
            bodies = [r.body for r in self.requests if api is None or r.api == api]
        return any(text in s for body in bodies for s in _strings(body))


def _dialect(api: str):
    return {"anthropic": Anthropic, "openai": Responses, "gemini": Gemini}[api]


def decide(dialect, body: dict) -> Answer:
    """The model's next answer for this conversation (see script.py)."""
    events = dialect.events(body)
    step = script.next_step(events)
    if step.directive is None:
        return Answer(text=step.text)
    if not body.get("tools"):  # a side call (title, summary): no tools to call
        return Answer(text=script.echo_text(events))
    return dialect.tool_answer(step.directive, body)


def _error_body(status: int) -> bytes:
    """One shape every client reads: Anthropic's `type`, OpenAI's and Google's fields."""
    error = {"type": "api_error", "code": status, "message": "fake failure", "status": "INTERNAL"}
    return json.dumps({"type": "error", "error": error}).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_HEAD(self):
        self._record("other", None)
        self._send(200, "text/plain", b"")

    def do_GET(self):
        self._record("other", None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, "application/json", json.dumps({"data": [], "models": []}).encode())
        else:
            self._send(404, "application/json", b'{"error": {"message": "not found"}}')

    def do_POST(self):
        body = self._read_json()
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            self._record("anthropic", body)
            return self._send(200, "application/json", b'{"input_tokens": 10}')
        if path.endswith("/messages"):
            return self._anthropic(body)
        if path.endswith("/responses"):
            return self._answer(Responses, body, lambda a: Responses.encode(a, body))
        match = _GEMINI_PATH.search(path)
        if match:
            return self._gemini(body, match.group(1), match.group(2) == "streamGenerateContent")
        self._record("other", body)
        self._send(404, "application/json", b'{"error": {"message": "not found"}}')

    def _anthropic(self, body: dict):
        def encode(answer: Answer) -> tuple[str, bytes] | None:
            pace = self.server.fake.take_pace(body, answer)
            if pace is None:
                return Anthropic.encode(answer, body)
            self._send_paced(*Anthropic.pieces(answer, body, pace.chunks), pace)
            return None  # sent

        self._answer(Anthropic, body, encode)

    def _gemini(self, body: dict, model: str, stream: bool):
        if Gemini.wants_json(body):
            self._record("gemini", body)
            answer = Answer(text=Gemini.json_text(body))
            return self._send(200, *Gemini.encode(answer, model, stream=stream))
        self._answer(Gemini, body, lambda a: Gemini.encode(a, model, stream=stream))

    def _answer(self, dialect, body: dict, encode):
        request = self._record(dialect.name, body)
        fake = self.server.fake
        if seconds := fake.take_hold():
            fake.holding.set()
            time.sleep(seconds)  # the fake model thinking; the test waits on `holding`
            fake.holding.clear()
        status = fake.take_failure()
        if status:
            return self._send(status, "application/json", _error_body(status))
        request.answer = decide(dialect, body)
        if (encoded := encode(request.answer)) is not None:
            self._send(200, *encoded)

    def _read_json(self) -> dict:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        self._raw = raw.decode("utf-8", "replace")
        try:
            return json.loads(self._raw) if self._raw else {}
        except json.JSONDecodeError:
            return {}

    def _record(self, api: str, body: dict | None) -> Request:
        request = Request(api, self.command, self.path, dict(self.headers), body)
        request.raw = getattr(self, "_raw", "")
        self.server.fake.record(request)
        return request

    def _send_paced(self, content_type: str, pieces: list[bytes], pace: Pace):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(sum(len(piece) for piece in pieces)))
        self.end_headers()
        for number, piece in enumerate(pieces):
            if number == len(pieces) - 1:
                pace.release.wait(RELEASE_SECONDS)
            elif number:
                time.sleep(pace.pause)
            self.wfile.write(piece)
            self.wfile.flush()

    def _send(self, status: int, content_type: str, payload: bytes):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
