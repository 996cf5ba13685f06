"""A callback receiver of our own on loopback: records each POST (headers and body) and
answers with the status the test sets."""

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    status: int = 200
    requests: list[Received] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)


def start_receiver() -> tuple[Receiver, ThreadingHTTPServer]:
    holder: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            receiver = holder[0]
            receiver.requests.append(Received(dict(self.headers.items()), self.rfile.read(length)))
            receiver.arrived.set()
            self.send_response(receiver.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(Receiver(url=f"http://127.0.0.1:{server.server_port}/answers"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return holder[0], server
