"""The hostile inputs of issue 11 against a real Daphne process: each answers 4xx JSON
under /api/v1/ (never 5xx, never HTML), pages 404."""

import json
import socket

import pytest

from accounts.actions import do_create_api_token
from tests.reliability.procs import WebSocket

pytestmark = pytest.mark.django_db(transaction=True)


def raw_request(port: int, method: str, path: str, body: bytes = b"", **headers) -> bytes:
    """Bytes on the wire, so nothing on our side cleans up the path or the body."""
    # HTTP/1.0: the answer comes whole, not chunked.
    lines = [f"{method} {path} HTTP/1.0", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def status_and_json(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), answer[:500]
    return int(head.split(b" ", 2)[1]), json.loads(body)


def test_it_answers_hostile_requests_with_4xx_json(owner, chat, processes):
    _, token = do_create_api_token(owner, name="hostile")
    port = processes("web", "web").port
    auth = {"Authorization": f"Bearer {token}", "Content_Type": "application/json"}
    nul_text = json.dumps({"to_chat": chat.pk, "text": "a\u0000b"}).encode()
    surrogate = json.dumps({"to_chat": chat.pk, "text": "\ud800"}).encode()
    deep = b'{"name": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    cases = [
        ("POST", "/api/v1/messages", nul_text, 400, "invalid_input"),
        ("POST", "/api/v1/messages", surrogate, 400, "invalid_input"),
        ("GET", "/api/v1/chats/chat_%00", b"", 400, "invalid_input"),
        ("GET", "/api/v1/activity?chat=x%00", b"", 400, "invalid_input"),
        ("POST", "/api/v1/chats", deep, 413, "too_large"),
        ("POST", "/api/v1/messages", b"x" * 5_000_000, 413, "too_large"),
        ("POST", "/api/v1/unknown", b"{}", 404, "not_found"),
        ("DELETE", "/api/v1/unknown/x", b"", 404, "not_found"),
    ]
    for method, path, body, status, code in cases:
        answer = status_and_json(raw_request(port, method, path, body, **auth))
        assert answer == (status, answer[1]) and answer[1]["code"] == code, (method, path, answer)
    page = raw_request(port, "GET", "/chats/chat_%00/")
    assert page.split(b" ", 2)[1] == b"404", page[:200]


def test_it_refuses_a_socket_for_a_malformed_chat_id(owner, processes, session_cookie):
    port = processes("web", "web").port
    refused = WebSocket(port, "/ws/chats/chat_%00/", cookie=session_cookie)
    assert refused.status == 403
    refused.close()
