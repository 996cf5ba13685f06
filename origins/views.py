"""POST /hooks/in/<origin id>: webhook, GitHub and Slack requests, dispatched on the
origin's kind. No session, no CSRF (the signature is the credential); an unknown,
disabled or A2A origin, or one of a deactivated account, answers with the same 404."""

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from kernel.api import refusal_response
from kernel.refusals import Refusal
from origins.actions import receive_from_origin
from origins.bodies import too_large
from origins.connectors import HOOK_KINDS, Handshake, for_kind
from origins.models import Origin
from origins.selectors import get_serving_origin, no_origin
from peers.actions.record import record_refusal


@csrf_exempt
def hook_in(request, public_id: str):
    if request.method != "POST":
        response = refusal_response(Refusal("method_not_allowed", "POST the request."))
        response["Allow"] = "POST"
        return response
    try:
        origin = get_serving_origin(public_id, kinds=HOOK_KINDS)
        if refusal := too_large(declared_length(request)) or too_large(len(request.body)):
            raise refusal
        thread = dispatch(origin, request)
    except Handshake as handshake:
        return JsonResponse(handshake.body, status=handshake.status)
    except Refusal as refusal:
        return refusal_response(refusal)
    if thread is None:
        return JsonResponse({"ok": True, "ignored": True})
    answer = {"ok": True, "chat": thread.chat_id, "thread": thread.thread_key}
    return JsonResponse(answer, status=202)


def dispatch(origin: Origin, request):
    try:
        connector = for_kind(origin.kind)
    except LookupError:  # this server has no connector for the kind: as if no origin
        raise no_origin() from None
    try:
        connector.verify(origin, request)
        inbound = connector.parse(origin, request)
    except Refusal as refusal:
        record_refusal(origin.user, refusal)
        raise
    if inbound is None:
        return None
    try:
        return receive_from_origin(origin, inbound).thread
    except Refusal as refusal:
        if refusal.code == "duplicate_delivery" and getattr(connector, "retries_ok", False):
            # Slack retries what got no 2xx in time, and turns off an app that fails often:
            # a retry of an accepted event is answered 200 (it still starts nothing).
            raise Handshake({"ok": True, "duplicate": True}) from None
        raise


def declared_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0
