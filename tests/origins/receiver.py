"""A callback receiver of our own on loopback: records each POST (headers and body) and
answers with the status (and Location) the test sets; and a bare listener that counts the
connections made to it, for what must never be reached."""

import socket
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
    location: str = ""
    requests: list[Received] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    # Set `holding`: the first POST is read, then left unanswered until `released` is set
    # (a sender killed mid-answer).
    holding: bool = False
    released: threading.Event = field(default_factory=threading.Event)


def start_receiver() -> tuple[Receiver, ThreadingHTTPServer]:
    holder: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            receiver = holder[0]
            receiver.requests.append(Received(dict(self.headers.items()), self.rfile.read(length)))
            receiver.arrived.set()
            if receiver.holding and len(receiver.requests) == 1:
                receiver.released.wait(60)
            self.send_response(receiver.status)
            if receiver.location:
                self.send_header("Location", receiver.location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(Receiver(url=f"http://127.0.0.1:{server.server_port}/answers"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return holder[0], server


class ConnectionCounter:
    """Listens on 127.0.0.1 and counts the connections it accepts (closing each at once)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.listener.close()
