import re
from functools import cache

from django.db import connection

from accounts.keys import digest
from accounts.models import User
from chats.models import AgentKey, Chat, Entry, Turn
from kernel.refusals import no_chat
from kernel.sql import columns, fetch, read

# What an id can look like (chat_…, msg_…); anything else is missing, never a query.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")


def well_formed_id(value) -> bool:
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def account_chats(user):
    """The account's chats, by name, archived ones too (a deleted one is gone): every
    query of "your chats" starts here."""
    return Chat.objects.filter(user=user, deleted_at__isnull=True)


def listed_chats(user, *, archived: bool = False):
    """The chats every list, rail, switcher and picker offers: archived ones only when
    asked for (`?archived=1`)."""
    chats = account_chats(user)
    return chats if archived else chats.filter(archived=False)


def access_chat(user, chat_id: str, *, for_update: bool = False) -> Chat:
    """The user's chat, or no_chat exactly as for one that does not exist."""
    if not well_formed_id(chat_id) or not user.is_authenticated:
        raise no_chat()
    chats = account_chats(user)
    if for_update:
        chats = chats.select_for_update(no_key=True)
    chat = chats.filter(pk=str(chat_id)).first()
    if chat is None:
        raise no_chat()
    return chat


def chat_for_agent_key(secret: str) -> Chat | None:
    """The chat's own key, an attachment's key not revoked (the chat then carries it as
    `attachment`), or the key of one of its hosted turns while that turn runs."""
    hashed = digest(secret)
    if (chat := chat_with_key(hashed)) is not None:
        return chat
    attachment = (
        AgentKey.objects.select_related("chat__user")
        .filter(digest=hashed, revoked_at__isnull=True, chat__deleted_at__isnull=True)
        .first()
    )
    if attachment is not None:
        chat = attachment.chat
        chat.attachment = attachment
        return chat
    turn = Turn.objects.filter(key_digest=hashed, state=Turn.State.RUNNING).first()
    return Chat.objects.select_related("user").get(pk=turn.chat_id) if turn else None


def attachment_keys(chat: Chat) -> list[AgentKey]:
    """The chat's attachments' keys, revoked ones too (the panel lists them)."""
    return list(chat.agent_keys.order_by("-created_at", "-id"))


def chat_with_key(hashed: str) -> Chat | None:
    """The chat whose key digest this is, with its user (one row: the digest is unique).
    Every agent request asks this first, so it is written out as SQL (kernel.sql)."""
    for row in fetch(chat_with_key_sql(connection.vendor), [hashed]):
        chat = read(Chat, row)
        chat.user = read(User, row, start=len(Chat._meta.concrete_fields))
        return chat
    return None


@cache
def chat_with_key_sql(vendor: str) -> str:
    return (
        f'SELECT {columns(Chat)}, {columns(User)} FROM "chats_chat"'  # noqa: S608 (no value in it)
        ' INNER JOIN "accounts_user" ON "accounts_user"."id" = "chats_chat"."user_id"'
        ' WHERE "chats_chat"."agent_key_digest" = %s'
    )


def get_latest_entries(chat: Chat, *, limit: int = 50) -> list[Entry]:
    entries = list(chat.entries.order_by("-created_at", "-id")[:limit])
    entries.reverse()
    return entries
