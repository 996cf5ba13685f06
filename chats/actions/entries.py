"""Entries of a conversation: notices and answers, a peer message's two sides, an answer's link."""

import re

from django.db import transaction
from django.db.models import Subquery

from chats.models import Chat, Entry, Turn
from kernel import events

# A note shown more than once in a row: its text, then how many times ("… (×7)").
REPEATED = re.compile(r"(?P<text>.*) \(×(?P<count>\d+)\)", re.DOTALL)


def do_add_entry(
    chat: Chat, *, kind: str, text: str, turn: Turn | None = None, message_id: str = ""
) -> Entry:
    """A new entry; a note the same as its turn's last entry is not added again: that
    entry counts it instead ("… (×2)"), so a retry noted at every attempt is one row."""
    with transaction.atomic():
        entry = repeated_note(turn, text) if kind == Entry.Kind.NOTICE and turn else None
        if entry is None:
            entry = Entry.objects.create(
                chat=chat, turn=turn, kind=kind, text=text, message_id=message_id
            )
    events.publish(chat.user_id, "entry", chat=chat.pk)
    return entry


def repeated_note(turn: Turn, text: str) -> Entry | None:
    """The turn's last entry, counted once more, when it is this same note."""
    last = turn.entries.select_for_update().order_by("-id").first()
    if last is None or last.kind != Entry.Kind.NOTICE:
        return None
    match = REPEATED.fullmatch(last.text)
    said, count = (match["text"], int(match["count"])) if match else (last.text, 1)
    if said != text:
        return None
    last.text = f"{text} (×{count + 1})"
    last.save(update_fields=["text"])
    return last


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
