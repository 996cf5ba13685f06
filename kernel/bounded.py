"""Bodies bounded in the server itself, before anything reads or parses them.

Daphne's request (a Twisted Request) keeps the whole body and, for a form POST, parses
it on the event loop before Django runs. Here a body declared larger than
MAX_BODY_BYTES (Content-Length), or growing past it (chunked), is answered 413 at once
and the connection closed, unread; and Twisted never parses a body: Django does, within
its own limits (a broken multipart body is then Django's 400, JSON under /api/v1/)."""

from html import escape
from io import BytesIO

from daphne.http_protocol import HTTPFactory, WebRequest
from django.conf import settings

from kernel.api import refusal_json
from kernel.refusals import Refusal

JSON_PREFIXES = ("/api/v1/", "/mcp")


def too_large_answer(path: bytes, limit: int) -> bytes:
    """The whole HTTP answer: JSON under the API and /mcp, a plain page elsewhere."""
    message = f"The body is too large: at most {limit} bytes are taken."
    target = path.split(b"?", 1)[0].decode("latin-1")
    if target.startswith(JSON_PREFIXES) or target in ("/api/v1", "/mcp"):
        content_type = b"application/json"
        _status, body = refusal_json(Refusal("too_large", message))
    else:
        content_type = b"text/html; charset=utf-8"
        body = (
            "<!doctype html><html lang=en><meta charset=utf-8><title>Too large · Crosstalk"
            f"</title><h1>413 Too large</h1><p>{escape(message)}</p></html>"
        ).encode()
    head = (
        b"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: " + content_type + b"\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n"
        b"X-Content-Type-Options: nosniff\r\n\r\n"
    )
    return head + body


class BoundedRequest(WebRequest):
    refused = False
    received = 0

    def __init__(self, *args, **kwargs) -> None:
        # Twisted's own form and multipart parsing never runs: Django parses bodies.
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)

    @property
    def limit(self) -> int:
        return settings.MAX_BODY_BYTES

    def gotLength(self, length: int | None) -> None:
        if length is not None and length > self.limit:
            self.refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.received += len(data)
        if self.received > self.limit:  # a chunked body that grew past the limit
            self.refuse()
            return
        super().handleContentChunk(data)

    def requestReceived(self, command, path, version) -> None:
        if not self.refused:
            super().requestReceived(command, path, version)

    def refuse(self) -> None:
        """413 now, before the body is read; nothing more is read from this connection."""
        self.refused = True
        self.content = BytesIO()  # what Twisted's clean-up closes; nothing is kept
        channel = self.channel
        channel.transport.write(too_large_answer(getattr(channel, "_path", b"/"), self.limit))
        channel.transport.loseConnection()


class BoundedHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = BoundedRequest
        return protocol


def install() -> None:
    """Daphne's Server builds its HTTP factory by this module-level name when it runs."""
    import daphne.server

    daphne.server.HTTPFactory = BoundedHTTPFactory
