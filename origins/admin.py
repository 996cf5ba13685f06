"""Origins in the Django admin: read-only rows, every change through origins.actions (the
admin actions below). A secret, token or private key is never shown in clear: the
settings appear with their secret values masked, the secret not at all."""

from django.contrib import admin, messages

from chats.admin import ReadOnlyAdmin
from kernel.refusals import Refusal
from origins import actions
from origins.inputs import SECRET_SETTINGS
from origins.models import Origin, OriginDelivery, OriginReply

MASK = "•••••• (set)"


def masked(settings: dict) -> dict:
    return {k: (MASK if k in SECRET_SETTINGS and v else v) for k, v in (settings or {}).items()}


@admin.register(Origin)
class OriginAdmin(ReadOnlyAdmin):
    list_display = ["name", "user", "kind", "enabled", "agent", "requests_per_hour", "created_at"]
    list_filter = ["kind", "enabled"]
    list_select_related = ["user"]
    search_fields = ["name", "public_id", "user__username"]
    exclude = ["secret", "settings"]
    readonly_fields = ["shown_settings", "has_secret"]
    actions = ["enable", "disable", "delete_origins"]

    @admin.display(description="Settings (secrets masked)")
    def shown_settings(self, origin: Origin) -> dict:
        return masked(origin.settings)

    @admin.display(description="Secret")
    def has_secret(self, origin: Origin) -> str:
        return MASK if origin.secret else "—"

    # The changes go through origins.actions, not the change form (read-only here), so
    # each action asks for the model permission it stands for: view alone acts on nothing.
    def has_manage_permission(self, request) -> bool:
        return request.user.has_perm("origins.change_origin")

    def has_remove_permission(self, request) -> bool:
        return request.user.has_perm("origins.delete_origin")

    @admin.action(description="Enable the selected origins", permissions=["manage"])
    def enable(self, request, queryset) -> None:
        for origin in queryset:
            actions.do_set_enabled(origin, enabled=True)

    @admin.action(
        description="Disable the selected origins (their URLs answer 404)", permissions=["manage"]
    )
    def disable(self, request, queryset) -> None:
        for origin in queryset:
            actions.do_set_enabled(origin, enabled=False)

    @admin.action(
        description="Delete the selected origins (their chats stay)", permissions=["remove"]
    )
    def delete_origins(self, request, queryset) -> None:
        for origin in queryset:
            actions.do_delete_origin(origin)


@admin.register(OriginDelivery)
class OriginDeliveryAdmin(ReadOnlyAdmin):
    list_display = ["delivery_id", "origin", "turn", "created_at"]
    search_fields = ["delivery_id", "origin__name"]
    list_select_related = ["origin", "turn"]
    exclude = ["signed_digest"]


@admin.register(OriginReply)
class OriginReplyAdmin(ReadOnlyAdmin):
    list_display = ["pk", "thread", "state", "attempts", "resends", "last_error", "created_at"]
    list_filter = ["state"]
    list_select_related = ["thread"]
    actions = ["resend"]

    def has_resend_permission(self, request) -> bool:
        return request.user.has_perm("origins.change_originreply")

    @admin.action(description="Resend the selected failed answers", permissions=["resend"])
    def resend(self, request, queryset) -> None:
        for reply in queryset.select_related("thread__origin"):
            try:
                actions.check_resend_answer(reply.thread.origin, reply.pk)
            except Refusal as refusal:
                self.message_user(request, f"Answer {reply.pk}: {refusal.message}", messages.ERROR)
