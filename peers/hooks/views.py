"""POST /api/v1/agent/hooks/<cli>: thin — authenticate the chat's key, parse the
payload, hand it to peers.hooks.handling, answer the JSON the CLI reads."""

from django.http import Http404

from chats.api import ApiView, Caller, json_body
from chats.refusals import Refusal
from peers.hooks.clis import CLIS
from peers.hooks.handling import handle
from peers.hooks.payloads import Event, parse


class HookApi(ApiView):
    caller_kind = "agent"
    http_method_names = ["post"]

    def post(self, request, caller: Caller, cli: str) -> dict:
        spec = CLIS.get(cli)
        if spec is None:
            raise Http404
        payload = parse(spec.payload, json_body(request))
        if spec.event(payload.hook_event_name) == Event.PROMPT and payload.prompt is None:
            raise Refusal("invalid_input", f"prompt: {payload.hook_event_name} needs the prompt.")
        return handle(spec, caller.chat, payload)
