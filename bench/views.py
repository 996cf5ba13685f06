"""The bare baseline for bench/send.py: one INSERT per request and nothing else.

Routed only by bench/urls.py, the benchmark's own URLconf. Raw SQL into
peers_activity, so the baseline needs no model and no migration of its own."""

from django.db import connection
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

INSERT = (
    "INSERT INTO peers_activity (user_id, action, detail, count, created_at)"
    " VALUES (%s, %s, %s, 1, %s)"
)


@csrf_exempt
def insert_one(request) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute(INSERT, [int(request.GET["user"]), "list", "bench", timezone.now()])
    return JsonResponse({"ok": True}, status=201)
