"""Deleting chats, for every face (REST, MCP, the pages, the Django admin): here at the
top because a delete touches origins (the chat's outside thread) as well as peers
(its turn, its waiting messages) and chats (its conversation)."""

from django.db import transaction

from chats.models import Chat
from chats.selectors import access_chat
from origins import actions as origin_actions
from peers import actions


def check_delete_chat(user, chat_id: str) -> None:
    """no_chat for a chat that is not the user's (or already deleted)."""
    with transaction.atomic():
        do_delete_chat(access_chat(user, chat_id, for_update=True))


def do_delete_chat(chat: Chat) -> None:
    with transaction.atomic():
        origin_actions.do_forget_chat(chat)
        actions.check_delete_chat(chat)
