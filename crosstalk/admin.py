"""The Django admin's chats, with what a person can do to them on the pages: rename,
archive, unarchive and delete, each through the same actions (peers.actions.
check_update_chat, crosstalk.chat_lifecycle). It replaces chats' read-only ChatAdmin
here at the top, where deleting (which touches origins) is importable."""

from django.contrib import admin, messages
from django.db import transaction

from chats.admin import ChatAdmin
from chats.inputs import ChatUpdate
from chats.models import Chat
from crosstalk.chat_lifecycle import do_delete_chat
from kernel.inputs import parse
from kernel.refusals import Refusal
from peers.actions import check_update_chat

admin.site.unregister(Chat)


@admin.register(Chat)
class LifecycleChatAdmin(ChatAdmin):
    list_display = [*ChatAdmin.list_display, "archived", "deleted_at"]
    list_filter = [*ChatAdmin.list_filter, "archived", ("deleted_at", admin.EmptyFieldListFilter)]
    actions = ["archive", "unarchive", "delete_for_good"]
    fields = ["name", "archived"]

    def has_change_permission(self, request, obj=None) -> bool:
        # Name and archived only, and never a deleted chat's row (it is history's).
        allowed = request.user.has_perm("chats.change_chat")
        return allowed and (obj is None or obj.deleted_at is None)

    def save_model(self, request, obj, form, change) -> None:
        changes = {field: form.cleaned_data[field] for field in form.changed_data}
        try:
            chat = Chat.objects.get(pk=obj.pk)
            check_update_chat(chat.user, chat, spec=parse(ChatUpdate, changes))
        except Refusal as refusal:
            self.message_user(request, refusal.message, messages.ERROR)

    @admin.action(description="Archive the selected chats", permissions=["change"])
    def archive(self, request, queryset) -> None:
        self.set_archived(request, queryset, archived=True)

    @admin.action(description="Unarchive the selected chats", permissions=["change"])
    def unarchive(self, request, queryset) -> None:
        self.set_archived(request, queryset, archived=False)

    def set_archived(self, request, queryset, *, archived: bool) -> None:
        for chat in queryset.filter(deleted_at__isnull=True):
            check_update_chat(chat.user, chat, spec=ChatUpdate(archived=archived))

    @admin.action(
        permissions=["change"],
        description="Delete the selected chats (stops their turns, revokes their keys; "
        'their messages stay in other chats\' history as "a deleted chat")',
    )
    def delete_for_good(self, request, queryset) -> None:
        with transaction.atomic():
            for chat in queryset.filter(deleted_at__isnull=True).select_for_update():
                do_delete_chat(chat)
