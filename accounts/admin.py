from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import ApiToken, ModelCredential, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        ("Crosstalk", {"fields": ("peers_for_new_chats",)}),
    )
    list_display = (*DjangoUserAdmin.list_display, "peers_for_new_chats")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "hint", "created_at", "last_used_at")
    list_select_related = ("user",)
    search_fields = ("name", "user__username", "hint")
    readonly_fields = ("user", "digest", "hint", "created_at", "last_used_at")

    # A row made here would have no secret anyone ever saw: tokens are made on
    # the settings page or with `manage.py create_api_token`.
    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ModelCredential)
class ModelCredentialAdmin(admin.ModelAdmin):
    """Seen and removed here, never read: the secret is sealed and not shown."""

    list_display = ("user", "provider", "kind", "hint", "base_url", "set_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    list_filter = ("provider", "kind")
    fields = ("user", "provider", "kind", "hint", "base_url", "set_at")
    readonly_fields = fields

    # Set by the person on Settings → Agents: an admin has no secret to type in.
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
