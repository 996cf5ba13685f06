"""The one lock order of peer messaging. Every action that locks more than one row
takes them in this order, and only through these functions:

1. the account (its users row),
2. chats, by id ascending,
3. messages, by id ascending (unless the caller orders them to pick the first).

A transaction never goes back up the list: once it holds a chat it takes no account
lock, once it holds a message it takes no chat lock. So two sends racing each other
(the person writing as chat A to B while B's final text answers A) queue on the
account instead of deadlocking on each other's chats.

All locks are FOR NO KEY UPDATE: inserts that reference a row (KEY SHARE) never wait
on it. SQLite has no row locks: its IMMEDIATE transactions already serialize every
writer, so the queries would only cost time there.

On PostgreSQL the account and its chats are locked by one statement: the account's
row in an uncorrelated EXISTS (an InitPlan, run once before the statement reads any
chat), then the chats as the sorted rows reach the lock, by id ascending. So the
order above holds inside the statement, one round trip less."""

from functools import lru_cache

from django.db import connection, transaction

from accounts.models import User
from chats.models import Chat
from chats.selectors import well_formed_id
from kernel.sql import columns, fetch, placeholders, read


def row_locks() -> bool:
    return connection.features.has_select_for_update


def lock_account(user_id: int) -> None:
    """One account's sends, wakes and list/read calls are counted under one row
    lock, so N racing senders can never push a counter past its limit."""
    if row_locks():
        User.objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk").first()


def lock_chats(user: User, chat_ids) -> dict[str, Chat]:
    """The account, then these chats of it by id ascending; the caller holds a
    transaction. Chats of another account, or missing, are left out."""
    # An id no chat can have (chats.selectors.ID_PATTERN) is missing, never a value.
    ids = sorted({str(chat_id) for chat_id in chat_ids if well_formed_id(chat_id)})
    if not ids:
        lock_account(user.pk)
        return {}
    if not row_locks():
        lock_account(user.pk)
        return {chat.pk: chat for chat in account_chats_by_id(user.pk, ids)}
    return {chat.pk: chat for chat in locked_account_chats(user.pk, ids)}


# Each send runs one of these two statements, so they are written out as SQL (kernel.sql).
def account_chats_by_id(user_id: int, ids: list[str]) -> list[Chat]:
    """The account's chats of these ids, by id (no lock: SQLite)."""
    if not ids:
        return []
    rows = fetch(chats_by_id_sql(connection.vendor, len(ids)), [user_id, *ids])
    return [read(Chat, row) for row in rows]


def locked_account_chats(user_id: int, ids: list[str]) -> list[Chat]:
    """The account's row locked, then its chats of these ids by id ascending, in one
    statement (PostgreSQL): the account's row in an uncorrelated EXISTS."""
    if transaction.get_autocommit():  # as the ORM refuses select_for_update there
        raise transaction.TransactionManagementError(
            "select_for_update cannot be used outside of a transaction."
        )
    if not ids:
        return []
    rows = fetch(locked_chats_sql(connection.vendor, len(ids)), [user_id, user_id, *ids])
    return [read(Chat, row) for row in rows]


@lru_cache(maxsize=16)  # a statement per list length; a send passes one or two ids
def chats_by_id_sql(vendor: str, count: int) -> str:
    return (
        f'SELECT {columns(Chat)} FROM "chats_chat"'  # noqa: S608 (no value in it)
        ' WHERE "chats_chat"."user_id" = %s'
        f' AND "chats_chat"."id" IN ({placeholders(range(count))}) ORDER BY "chats_chat"."id"'
    )


@lru_cache(maxsize=16)  # a statement per list length; a send passes one or two ids
def locked_chats_sql(vendor: str, count: int) -> str:
    return (
        f'SELECT {columns(Chat)} FROM "chats_chat"'  # noqa: S608 (no value in it)
        ' WHERE "chats_chat"."user_id" = %s'
        ' AND EXISTS (SELECT 1 FROM "accounts_user" WHERE "id" = %s FOR NO KEY UPDATE)'
        f' AND "chats_chat"."id" IN ({placeholders(range(count))})'
        ' ORDER BY "chats_chat"."id" FOR NO KEY UPDATE OF "chats_chat"'
    )


def lock_for_send(user: User, *, from_chat: Chat | None, to: str, person: bool) -> Chat | None:
    """A send's rows: the account, then the recipient, and the sender's chat too when
    the person writes (the send stamps both); the recipient, or None when missing."""
    ids = [to, from_chat.pk if person and from_chat is not None else None]
    return lock_chats(user, ids).get(str(to))


def lock_messages(query):
    """The messages of `query`, row-locked, by id unless the query is ordered; the
    caller holds a transaction (and takes no chat lock after this)."""
    if not query.query.order_by:
        query = query.order_by("pk")
    if row_locks():
        query = query.select_for_update(no_key=True, of=("self",))
    return list(query)
