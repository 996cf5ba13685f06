"""POST /api/v1/agent/hooks/<cli>: thin — one route per CLI, typed by its payload,
handed to agents.hooks.handling; the answer is the JSON that CLI reads."""

from typing import Any

from ninja import Router

from agents.hooks.clis import CLIS, Cli
from agents.hooks.handling import handle
from agents.hooks.payloads import Event
from chats.api import AgentKey
from chats.outputs import problems
from kernel.refusals import Refusal

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
