from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import ApiToken, User


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
