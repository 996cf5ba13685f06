"""POST /api/v1/agent/hooks/<cli>: thin — one route per CLI, typed by its payload,
handed to peers.hooks.handling; the answer is the JSON that CLI reads."""

from typing import Any

from ninja import Router

from chats.api import AgentKey
from chats.outputs import problems
from chats.refusals import Refusal
from peers.hooks.clis import CLIS, Cli
from peers.hooks.handling import handle
from peers.hooks.payloads import Event

router = Router(auth=AgentKey(), tags=["hooks"])


def add_hook_route(cli: Cli) -> None:
    payload_model = cli.payload

    def hook(request, payload: payload_model) -> dict:
        if cli.event(payload.hook_event_name) == Event.PROMPT and payload.prompt is None:
            raise Refusal("invalid_input", f"prompt: {payload.hook_event_name} needs the prompt.")
        return handle(cli, request.auth.chat, payload)

    hook.__name__ = f"hook_{cli.name.replace('-', '_')}"  # its operationId
    hook.__doc__ = f"{cli.name}'s hooks: context to add, or more to do before it finishes."
    router.post(
        f"/agent/hooks/{cli.name}",
        response={200: dict[str, Any], **problems(400, 401, 413)},
    )(hook)


for cli in CLIS.values():
    add_hook_route(cli)
