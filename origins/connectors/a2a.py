"""A2A answers travel in the task the client holds (origins.a2a): the client reads the
artifact from the stream, the blocking send or tasks/get, so there is nothing to post."""

from django.http import HttpRequest

from kernel.refusals import Refusal
from origins.models import Origin, OriginThread


class A2AConnector:
    kind = "a2a"

    def verify(self, origin: Origin, request: HttpRequest) -> None:
        raise Refusal("not_found", "A2A requests go to /a2a/<origin id>/.")

    def parse(self, origin: Origin, request: HttpRequest) -> None:
        raise Refusal("not_found", "A2A requests go to /a2a/<origin id>/.")

    def send_answer(self, thread: OriginThread, text: str) -> None:
        """Delivered already: the task's artifact is the turn's final text."""
