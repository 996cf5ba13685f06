"""A chat deleted by the person (archiving is a field of check_update_chat).

Only its row stays, renamed DELETED_NAME and with a key no one holds, so the messages it
sent and received still read in the other chats' history as "a deleted chat"; its
conversation (turns and entries) is gone. peers.actions.check_delete_chat stops its turn
and settles its messages first; crosstalk.chat_lifecycle is the one face-side caller."""

from django.db import transaction
from django.utils import timezone

from accounts import keys
from chats.models import DELETED_NAME, Chat
from kernel import events


def do_delete_chat(chat: Chat) -> Chat:
    """Hold the chat's row lock (the caller's transaction); its turn already stopped."""
    with transaction.atomic(savepoint=False):
        chat.entries.all().delete()
        chat.turns.all().delete()  # its hosted turns' keys go with them
        chat.name = DELETED_NAME
        chat.deleted_at = timezone.now()
        chat.archived = True
        chat.peers = False
        chat.status = Chat.Status.STOPPED
        # A digest of a secret never shown: the old key answers 401 from now on, and so
        # do its attachments' keys.
        chat.agent_key_digest = keys.digest(keys.new_secret("cak"))
        chat.agent_keys.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        for field in ("last_asked", "last_answered", "failure", "session_id", "folder"):
            setattr(chat, field, "")
        chat.stop_session_id = ""
        chat.save(
            update_fields=[
                "name",
                "deleted_at",
                "archived",
                "peers",
                "status",
                "agent_key_digest",
                "last_asked",
                "last_answered",
                "failure",
                "session_id",
                "folder",
                "stop_session_id",
                "updated_at",
            ]
        )
        # "chat" (no id) refreshes the lists and rails; "deleted" takes its own pages away.
        events.publish(chat.user_id, "chat")
        events.publish(chat.user_id, "deleted", chat=chat.pk)
    return chat
