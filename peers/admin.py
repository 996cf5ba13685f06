"""Django admin for peers: chats, messages and activity read-only (each changelist a
constant number of queries); limits editable through peers.actions.do_set_limits."""

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from chats.admin import ChatAdmin, ReadOnlyAdmin
from chats.models import Chat
from peers.actions import do_set_limits
from peers.limits import NAMES
from peers.models import Activity, Limits, PeerMessage
from peers.serializers import words

# Which activity rows tell a message's story, and what each says happened.
HISTORY_ACTIONS = {
    Activity.Action.MESSAGE: "sent",
    Activity.Action.DELIVERY: "delivered",
    Activity.Action.CANCEL: "cancelled",
}

admin.site.unregister(Chat)


def when(moment) -> str:
    """A history time a person reads: to the second, in the server's time zone."""
    return timezone.localtime(moment).strftime("%b %-d, %Y %H:%M:%S") if moment else "—"


@admin.register(Chat)
class PeersChatAdmin(ChatAdmin):
    list_display = [
        "name",
        "user",
        "repository",
        "branch",
        "agent",
        "status",
        "peers",
        "origin",
        "last_ran_at",
    ]
    list_select_related = ["user"]
    search_fields = ["id", "name", "repository", "branch", "user__username"]
    date_hierarchy = "last_ran_at"


@admin.register(PeerMessage)
class PeerMessageAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "created_at",
        "user",
        "from_chat",
        "to_chat",
        "sent_by",
        "state",
        "path",
        "reason",
        "woke",
        "seconds_to_deliver",
    ]
    list_filter = ["state", "path", "reason", "sent_by", "woke"]
    list_select_related = ["user", "from_chat", "to_chat"]
    search_fields = ["id", "text", "exchange", "chain", "from_chat__name", "to_chat__name"]
    date_hierarchy = "created_at"
    readonly_fields = ["state_history"]
    show_full_result_count = False  # an exact COUNT of a large table on every page costs

    @admin.display(description="seconds to deliver")
    def seconds_to_deliver(self, message: PeerMessage) -> str:
        if message.delivered_at is None:
            return "—"
        return f"{(message.delivered_at - message.created_at).total_seconds():.2f}"

    @admin.display(description="state history")
    def state_history(self, message: PeerMessage) -> str:
        """What the data keeps: the activity rows of the message, then where it stands now."""
        rows = Activity.objects.filter(message=message, action__in=list(HISTORY_ACTIONS))
        rows = list(rows.order_by("created_at", "id"))
        steps = [(when(row.created_at), HISTORY_ACTIONS[row.action], row.detail) for row in rows]
        # Where it stands now, unless the last row already said it (delivered, cancelled).
        if not rows or HISTORY_ACTIONS[rows[-1].action] != message.state:
            steps.append((when(message.state_changed_at), "now", words(message)))
        return format_html(
            "<table><tr><th>When</th><th>What</th><th>Detail</th></tr>{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", steps),
        )


@admin.register(Activity)
class ActivityAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "user", "chat", "target", "message_link", "detail"]
    list_filter = ["action"]
    list_select_related = ["user", "chat", "target"]
    search_fields = ["detail", "message__id", "chat__name", "target__name", "user__username"]
    date_hierarchy = "created_at"
    show_full_result_count = False

    @admin.display(description="message", ordering="message")
    def message_link(self, row: Activity) -> str:
        if row.message_id is None:
            return "—"
        # quote(): admin reads "_22".."_40" in a raw "msg_<hex>" as escaped characters
        url = reverse("admin:peers_peermessage_change", args=[quote(row.message_id)])
        return format_html('<a href="{}">{}</a>', url, row.message_id)


@admin.register(Limits)
class LimitsAdmin(admin.ModelAdmin):
    list_display = ["__str__", *NAMES, "updated_at"]
    fields = NAMES

    # One row (pk=1), made by the first save of the limits, never added or deleted here.
    def has_add_permission(self, request) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        """No list of one ("1 limits"): straight to the row, or to the staff page's form."""
        if Limits.objects.filter(pk=1).exists():
            return redirect("admin:peers_limits_change", 1)
        return redirect(reverse("peers-admin") + "#limits")

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj: Limits, form, change: bool) -> None:
        values = {name: getattr(obj, name) for name in NAMES}
        saved = do_set_limits(values, user=request.user)
        obj.pk = saved.pk
