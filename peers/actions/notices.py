"""The sender hears every later turn of its message: one Notice per change (approved,
denied, held, removed, cancelled, not delivered, answered), told once to the sending
chat's agent — at its next step (hook context), with its next turn's prompt, or from
its inbox. Never for a message the person sent.

Each state change calls `tell_sender(message, state)` inside its transaction; the
runner, the hooks and the inbox call `take_notices(chat)`, which hands each over once."""

from html import escape

from django.db import transaction
from django.utils import timezone

from chats.models import Chat, Turn
from kernel import events
from peers import delivery_table
from peers.actions.locking import row_locks
from peers.models import Notice, PeerMessage
from peers.selectors import untold_notices

APPROVED = "approved"
DENIED = "denied"
HELD = "held"
REMOVED = "removed"
CANCELLED = "cancelled"
NOT_DELIVERED = "not_delivered"
ANSWERED = "answered"

# What happened to "Your message msg_… to NAME", in a few words the agent can act on.
SENTENCES = {
    APPROVED: "was approved by the person and goes on to it.",
    DENIED: "was denied by the person: it will not be delivered. Do not wait for an answer.",
    HELD: "is held: that chat was stopped or its turn failed, and it waits until the "
    "person writes there. Do not wait for an answer.",
    REMOVED: "was removed from that chat's queue by the person: it will not be delivered.",
    CANCELLED: "was cancelled by the person before it arrived.",
    NOT_DELIVERED: "was not delivered{why}.",
    ANSWERED: "was answered ({answer}).",
}


def tell_sender(message: PeerMessage, state: str, *, why: str = "") -> Notice | None:
    """Record that `message` reached `state`, for its sending agent to hear once. The
    same untold change is never told twice (a repeated stop holds nothing new)."""
    if message.sent_by != PeerMessage.SentBy.AGENT or message.from_chat_id is None:
        return None  # the person reads their own messages' cards
    untold = Notice.objects.filter(message_id=message.pk, state=state, told_at__isnull=True)
    if untold.exists():
        return None
    notice = Notice.objects.create(
        user_id=message.user_id,
        chat_id=message.from_chat_id,
        message_id=message.pk,
        state=state,
        text=notice_text(message, state, why=why),
        created_at=timezone.now(),
    )
    # A long-polling inbox of the sender hears of it (after commit).
    inbox = [events.inbox_group(message.from_chat_id)]
    events.publish(message.user_id, "notice", groups=inbox, chat=message.from_chat_id)
    return notice


def notice_text(message: PeerMessage, state: str, *, why: str = "") -> str:
    to = message.to_chat.name if message.to_chat_id else "you"
    why = f": {why.strip()}" if why.strip() else ""
    answer = message.answer_id or "an answer"
    sentence = SENTENCES[state].format(why=why, answer=answer)
    return f"Your message {message.pk} to {to} {sentence}"[:500]


def has_notices(chat: Chat) -> bool:
    return untold_notices(chat).exists()


def take_notices(chat: Chat, *, ids: list[str] | None = None) -> list[Notice]:
    """The chat's untold notices (or those of `ids`), oldest first, each handed over
    exactly once (the rows are locked: two hooks of one chat racing never both take one)."""
    with transaction.atomic():
        query = untold_notices(chat)
        if ids is not None:
            query = query.filter(pk__in=[str(i) for i in ids])
        if row_locks():
            query = query.select_for_update(no_key=True)
        notices = list(query)
        if notices:
            now = timezone.now()
            Notice.objects.filter(pk__in=[n.pk for n in notices]).update(told_at=now)
    return notices


def frame_notice(notice: Notice) -> str:
    """One short block; its only text of another's is a chat name, escaped."""
    head = f'message="{escape(notice.message_id)}" state="{escape(notice.state)}"'
    return f"<crosstalk-notice {head}>{escape(notice.text, quote=False)}</crosstalk-notice>"


def frame_notices(notices: list[Notice]) -> str:
    return "\n".join(frame_notice(notice) for notice in notices)


def notices_for_turn(turn: Turn) -> str:
    """What a starting turn's prompt tells of the chat's sent messages (framed), taken;
    none for a turn answering its origin, nor while the switch is off."""
    if not turn.chat.peers or not delivery_table.takes_peer_messages(turn):
        return ""
    return frame_notices(take_notices(turn.chat)) if has_notices(turn.chat) else ""
