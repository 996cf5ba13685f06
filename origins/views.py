"""POST /hooks/in/<origin id>: webhook, GitHub and Slack requests, dispatched on the
origin's kind. No session, no CSRF (the signature is the credential); an unknown,
disabled or A2A origin answers with the same 404."""

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from chats.refusals import Refusal
from origins.actions import no_origin, receive_from_origin
from origins.connectors import HOOK_KINDS, Handshake, for_kind
from origins.models import Origin
from peers.actions.record import record_refusal


def refused(refusal: Refusal) -> JsonResponse:
    return JsonResponse(refusal.as_json(), status=refusal.status)


@csrf_exempt
def hook_in(request, public_id: str):
    if request.method != "POST":
        response = refused(Refusal("method_not_allowed", "POST the request."))
        response["Allow"] = "POST"
        return response
    origin = (
        Origin.objects.filter(public_id=public_id, enabled=True, kind__in=HOOK_KINDS)
        .select_related("user")
        .first()
    )
    if origin is None:
        return refused(no_origin())
    if too_large(request):
        return refused(Refusal("too_large", "The request body is too large."))
    try:
        thread = dispatch(origin, request)
    except Handshake as handshake:
        return JsonResponse(handshake.body, status=handshake.status)
    except Refusal as refusal:
        return refused(refusal)
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


def too_large(request) -> bool:
    most = settings.ORIGIN_MAX_BODY_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    return declared > most or len(request.body) > most
