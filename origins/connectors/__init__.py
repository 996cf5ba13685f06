"""One connector per origin kind: checks a request's signature, reads it into an Inbound,
and sends an answer back. The hooks view (origins.views) dispatches on the origin's kind."""

from typing import Protocol

from django.http import HttpRequest
from django.utils.module_loading import import_string

from origins.inputs import Inbound
from origins.models import Origin, OriginThread

# Imported when first used: a kind's SDK loads only in the processes that need it.
CONNECTORS = {
    "webhook": "origins.connectors.webhook.WebhookConnector",
    "automation": "origins.connectors.webhook.AutomationConnector",
    "github": "origins.connectors.github.GitHubConnector",
    "slack": "origins.connectors.slack.SlackConnector",
    "a2a": "origins.connectors.a2a.A2AConnector",
}
# The kinds that POST to /hooks/in/<id> (A2A has its own server, automation no URL).
HOOK_KINDS = ("webhook", "github", "slack")


class Connector(Protocol):
    kind: str

    def verify(self, origin: Origin, request: HttpRequest) -> None:
        """Raise Refusal("bad_signature", …) (401) unless the request is signed."""

    def parse(self, origin: Origin, request: HttpRequest) -> Inbound | None:
        """The request as an Inbound; None for an event to ignore (answered 200);
        raise Handshake to answer the sender directly (Slack's url_verification)."""

    def send_answer(self, thread: OriginThread, text: str) -> None:
        """Send the answer; raise on failure (it is retried with back-off)."""


class Handshake(Exception):  # noqa: N818 (an answer, not an error)
    """Raised by parse to answer the sender with this JSON and start nothing."""

    def __init__(self, body: dict, status: int = 200) -> None:
        super().__init__(body)
        self.body = body
        self.status = status


def for_kind(kind: str) -> Connector:
    try:
        return import_string(CONNECTORS[kind])()
    except (KeyError, ImportError) as error:
        raise LookupError(f"No connector for origins of kind {kind!r}.") from error
