"""Entries of a conversation: notices and answers, a peer message's two sides, an answer's link."""

from django.db.models import Subquery

from chats import events
from chats.models import Chat, Entry, Turn


def do_add_entry(
    chat: Chat, *, kind: str, text: str, turn: Turn | None = None, message_id: str = ""
) -> Entry:
    entry = Entry.objects.create(chat=chat, turn=turn, kind=kind, text=text, message_id=message_id)
    events.publish(chat.user_id, "entry", chat=chat.pk)
    return entry


def do_add_message_entries(**message) -> None:
    """Writes message_entries(**message); the message's own push, after commit, tells
    the pages, none is made here."""
    Entry.objects.bulk_create(message_entries(**message))


def message_entries(
    *, message_id: str, text: str, from_chat: Chat | None, to_chat: Chat | None, turn: Turn | None
) -> list[Entry]:
    """A peer message in each conversation it joins: peer_out in its sender's (in the
    turn that sent it), peer_in in its recipient's. The send inserts these rows in its
    own round trip with the message (peers.actions.inserts); their shape is chats'."""
    entries = []
    if from_chat is not None:
        out = Entry.Kind.PEER_OUT
        entries.append(Entry(chat=from_chat, turn=turn, kind=out, text=text, message_id=message_id))
    if to_chat is not None:
        entries.append(
            Entry(chat=to_chat, kind=Entry.Kind.PEER_IN, text=text, message_id=message_id)
        )
    return entries


def do_link_answer_entry(turn: Turn, *, message_id: str) -> None:
    """The turn's answer entry shows this message (the answer its final text sent):
    the pages show it once, inside the message's card."""
    last = turn.entries.filter(kind=Entry.Kind.ANSWER, message_id="").order_by("-id")
    # One statement: a turn's end takes the writers' line once for it, not a read and a write.
    Entry.objects.filter(pk=Subquery(last.values("pk")[:1])).update(message_id=message_id)
