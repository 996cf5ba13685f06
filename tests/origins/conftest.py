import json
import uuid

import pytest
from django.test import Client

from origins import outbound, signing
from origins.models import Origin


def make_origin(user, name: str = "ci", *, kind: str = "webhook", **fields) -> Origin:
    """Test setup: an origin row as the Settings page makes it."""
    settings_ = fields.pop("settings", {"callback_url": "http://127.0.0.1:9/unused"})
    return Origin.objects.create(user=user, name=name, kind=kind, settings=settings_, **fields)


def signed(
    origin: Origin,
    payload: dict,
    *,
    delivery: str | None = None,
    secret: str | None = None,
    timestamp: str | None = None,
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a webhook request, signed as docs/origins.md says."""
    body = json.dumps(payload).encode()
    headers = signing.signed_headers(
        secret or origin.secret, body, delivery_id=delivery or uuid.uuid4().hex
    )
    if timestamp is not None:
        headers[signing.TIMESTAMP] = timestamp
        headers[signing.SIGNATURE] = signing.signature(secret or origin.secret, timestamp, body)
    return body, headers


def post_hook(client: Client, origin: Origin, body: bytes, headers: dict[str, str]):
    return client.generic(
        "POST",
        f"/hooks/in/{origin.public_id}",
        body,
        content_type="application/json",
        headers={k: v for k, v in headers.items() if k != "Content-Type"},
    )


@pytest.fixture(autouse=True)
def private_urls_allowed(settings):
    """The receivers and fake APIs of these tests listen on 127.0.0.1; test_outbound.py
    turns this off to check the refusal."""
    settings.ORIGIN_PRIVATE_URLS = True


@pytest.fixture
def origin(owner):
    return make_origin(owner)


@pytest.fixture
def receiver():
    from tests.origins.receiver import start_receiver

    found, server = start_receiver()
    yield found
    server.shutdown()
    server.server_close()


@pytest.fixture
def loopback_listener():
    from tests.origins.receiver import ConnectionCounter

    counter = ConnectionCounter()
    yield counter
    counter.close()


@pytest.fixture
def stub_dns(monkeypatch):
    """origins.outbound's network with a stub resolver (`answers[name]`: one list of
    addresses per lookup, the last repeated) and `routes` from a checked address and port to
    a local server; everything else as in production."""
    from tests.origins.stub_dns import StubDns

    stub = StubDns()
    monkeypatch.setattr(outbound, "network", outbound.Network(stub.resolve, stub.routes))
    return stub
