"""Read-only admin: every change to chats goes through chats.actions."""

from django.contrib import admin

from chats.models import Chat, Entry, Turn


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Chat)
class ChatAdmin(ReadOnlyAdmin):
    list_display = ["name", "user", "repository", "branch", "agent", "status", "peers"]
    list_filter = ["status", "agent", "peers", "origin"]
    search_fields = ["name", "repository", "branch", "user__username"]
    exclude = ["agent_key_digest"]


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin):
    list_display = ["chat", "trigger", "state", "requested_at", "started_at", "ended_at"]
    list_filter = ["state", "trigger"]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["chat", "kind", "created_at"]
    list_filter = ["kind"]
