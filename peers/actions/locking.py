"""The account lock every counted change of peer messaging is taken under."""

from django.db import connection

from accounts.models import User
from chats.models import Chat


def lock_account(user_id: int) -> None:
    """One account's sends, wakes and list/read calls are counted under one row
    lock, so N racing senders can never push a counter past its limit.

    NO KEY UPDATE: inserts that reference the row (KEY SHARE) must not deadlock
    with it. SQLite has no row locks: its IMMEDIATE transactions already
    serialize every writer, so the query would only cost time there."""
    if connection.features.has_select_for_update:
        User.objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk").first()


def lock_recipient(user: User, to: str) -> Chat | None:
    """The recipient and its account, locked in one statement (see lock_account).

    A missing recipient locks nothing: the send is refused anyway."""
    chats = Chat.objects.filter(pk=str(to), user=user)
    if not connection.features.has_select_for_update:
        return chats.first()
    return chats.select_related("user").select_for_update(no_key=True, of=("self", "user")).first()


def lock_messages(query):
    """The messages of `query`, row-locked; the caller holds a transaction."""
    if connection.features.has_select_for_update:
        query = query.select_for_update(no_key=True, of=("self",))
    return list(query)
