import re

from accounts.keys import digest
from chats.models import Chat, Entry, Turn
from chats.prepared import PreparedQuery
from chats.refusals import no_chat

# What an id can look like (chat_…, msg_…); anything else is missing, never a query.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")


def well_formed_id(value) -> bool:
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def account_chats(user):
    """The account's chats, by name: every list of "your chats" starts here."""
    return Chat.objects.filter(user=user)


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


# Every agent request asks this first: compiled once (chats.prepared).
chat_with_key = PreparedQuery(
    lambda hashed: Chat.objects.select_related("user").filter(agent_key_digest=hashed)[:1]
)


def chat_for_agent_key(secret: str) -> Chat | None:
    """The chat's own key, or the key of one of its hosted turns while that turn runs."""
    hashed = digest(secret)
    for chat in chat_with_key(hashed):
        return chat
    turn = Turn.objects.filter(key_digest=hashed, state=Turn.State.RUNNING).first()
    return Chat.objects.select_related("user").get(pk=turn.chat_id) if turn else None


def get_latest_entries(chat: Chat, *, limit: int = 50) -> list[Entry]:
    entries = list(chat.entries.order_by("-created_at", "-id")[:limit])
    entries.reverse()
    return entries
