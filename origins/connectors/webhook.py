"""The signed webhook (docs/origins.md): POST /hooks/in/<id> with a JSON body
{"text", "thread"?, "author"?}; the answer is POSTed to the origin's callback_url,
signed the same way."""

import hashlib
import json
import uuid
from typing import Annotated

from pydantic import ConfigDict, StringConstraints

from kernel.inputs import Input, parse
from kernel.refusals import Refusal
from origins import signing
from origins.bodies import read_json
from origins.connectors import Handshake
from origins.inputs import Inbound
from origins.models import Origin, OriginThread
from origins.outbound import outbound_client

CALLBACK_TIMEOUT_SECONDS = 10
TEST_TEXT = "Crosstalk test request: checks the signature and starts nothing."


class WebhookBody(Input):
    # Senders may carry more fields of their own; only these are read.
    model_config = ConfigDict(extra="ignore", strict=True)

    text: str
    thread: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    author: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    # The Settings page's "Send a test request": verified, answered, nothing started.
    test: bool = False


class WebhookConnector:
    kind = "webhook"

    def verify(self, origin: Origin, request) -> None:
        signing.check_signature(
            origin.secret,
            given=request.headers.get(signing.SIGNATURE, ""),
            timestamp=request.headers.get(signing.TIMESTAMP, ""),
            body=request.body,
        )

    def parse(self, origin: Origin, request) -> Inbound | None:
        body = parse(WebhookBody, json_body(request))
        if body.test:
            raise Handshake({"ok": True, "test": True, "message": "The signature checks out."})
        delivery_id = request.headers.get(signing.DELIVERY, "").strip()
        if not delivery_id:
            raise Refusal("invalid_input", f"Send {signing.DELIVERY}: an id for this request.")
        thread = body.thread or f"wh-{uuid.uuid4().hex}"
        return Inbound(
            thread_key=thread,
            text=body.text,
            author=body.author,
            delivery_id=delivery_id,
            reply_to={"thread": thread},
            signed_digest=signing.signed_digest(
                request.headers.get(signing.TIMESTAMP, ""), request.body
            ),
        )

    def send_answer(self, thread: OriginThread, text: str) -> None:
        callback = (thread.origin.settings or {}).get("callback_url", "")
        if not callback:
            raise RuntimeError("the origin has no callback_url")
        post_signed(thread.origin, callback, answer_body(thread, text))

    def test_request(self, origin: Origin) -> tuple[dict[str, str], bytes]:
        """Headers and body of a signed test request (the Settings page's button)."""
        body = json.dumps({"text": TEST_TEXT, "test": True}).encode()
        delivery = f"test-{uuid.uuid4().hex}"
        return signing.signed_headers(origin.secret, body, delivery_id=delivery), body


def json_body(request) -> object:
    return read_json(request.body)


def answer_body(thread: OriginThread, text: str) -> bytes:
    return json.dumps(
        {
            "origin": thread.origin.public_id,
            "thread": thread.thread_key,
            "chat": thread.chat_id,
            "text": text,
        }
    ).encode()


def post_signed(origin: Origin, url: str, body: bytes) -> None:
    # The same answer in the same thread keeps its delivery id: a receiver can drop a retry.
    delivery = "rep_" + hashlib.sha256(url.encode() + b"\0" + body).hexdigest()[:32]
    headers = signing.signed_headers(origin.secret, body, delivery_id=delivery)
    with outbound_client(CALLBACK_TIMEOUT_SECONDS) as client:
        response = client.post(url, content=body, headers=headers)
    if response.status_code >= 300:
        raise RuntimeError(f"{url} answered {response.status_code}")


class AutomationConnector(WebhookConnector):
    """Started by `manage.py start_chat` or MCP start_chat, not over HTTP; its answer stays
    on the chat, and goes to a callback_url too when the origin has one."""

    kind = "automation"

    def verify(self, origin: Origin, request) -> None:
        raise Refusal("bad_signature", "Automation origins take no HTTP requests.")

    def send_answer(self, thread: OriginThread, text: str) -> None:
        callback = (thread.origin.settings or {}).get("callback_url", "")
        if callback:
            post_signed(thread.origin, callback, answer_body(thread, text))
