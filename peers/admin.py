"""Django admin for peers: messages and activity read-only; limits editable
through peers.actions.do_set_limits (validated like `peer_limits`)."""

from django.contrib import admin

from chats.admin import ReadOnlyAdmin
from peers.actions import do_set_limits
from peers.limits import NAMES
from peers.models import Activity, Limits, PeerMessage


@admin.register(PeerMessage)
class PeerMessageAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "state",
        "reason",
        "path",
        "from_chat",
        "to_chat",
        "sent_by",
        "created_at",
    ]
    list_filter = ["state", "reason", "path", "sent_by"]
    list_select_related = ["from_chat", "to_chat"]
    search_fields = ["id", "text", "exchange", "chain"]
    date_hierarchy = "created_at"


@admin.register(Activity)
class ActivityAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "chat", "target", "message", "detail"]
    list_filter = ["action"]
    list_select_related = ["chat", "target"]
    search_fields = ["detail", "message__id"]
    date_hierarchy = "created_at"


@admin.register(Limits)
class LimitsAdmin(admin.ModelAdmin):
    list_display = ["__str__", *NAMES, "updated_at"]
    fields = NAMES

    # One row (pk=1): it may be made once, never deleted.
    def has_add_permission(self, request) -> bool:
        return not Limits.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj: Limits, form, change: bool) -> None:
        values = {name: getattr(obj, name) for name in NAMES}
        saved = do_set_limits(values, user=request.user)
        obj.pk = saved.pk
