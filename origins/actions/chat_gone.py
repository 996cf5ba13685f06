"""A chat the person deleted: its outside thread is forgotten, so the next request from
that issue or Slack thread starts a fresh chat rather than waking a deleted one."""

from chats.models import Chat
from origins.models import OriginThread


def do_forget_chat(chat: Chat) -> None:
    """Inside the delete's transaction (crosstalk.chat_lifecycle)."""
    OriginThread.objects.filter(chat=chat).delete()  # its replies and their failures too
