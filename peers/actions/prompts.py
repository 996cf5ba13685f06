"""The person's prompt: a turn for a chat Crosstalk runs; for a session the person runs
and attached (a CLI chat with no folder), a message queued for that session. The
browser never starts a CLI that lives in the person's terminal."""

from django.db import transaction
from django.utils import timezone

from accounts.keys import new_id
from chats import actions as chat_actions
from chats import agent_kinds
from chats.models import Chat, Entry, Turn
from kernel.refusals import no_chat
from peers import delivery_table
from peers.actions.deliver import requeue
from peers.actions.locking import lock_chats
from peers.actions.send import Outgoing, PreparedSend, check_text, do_send_message
from peers.limits import current_limits
from peers.models import PeerMessage
from peers.selectors import waiting_for_delivery

Status = Chat.Status
Reason = PeerMessage.Reason
QUEUED_NOTICE = (
    "Queued for its attached session: your prompt reaches the session in your terminal "
    "with its next prompt, step or tool call. Crosstalk does not run it here."
)


def check_prompt_or_queue(
    chat: Chat, *, text: str, send_queued: bool = True
) -> tuple[Turn | None, PeerMessage | None]:
    """The turn requested, or (an attached session's chat) the message queued for it."""
    if not agent_kinds.for_its_session(chat):
        return chat_actions.check_prompt(chat, text=text, send_queued=send_queued), None
    return None, check_queue_prompt(chat, text=text, send_queued=send_queued)


def check_queue_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> PeerMessage:
    chat_actions.check_has_text(text)
    check_text(text, current_limits())
    with transaction.atomic():
        chat = lock_chats(chat.user, [chat.pk]).get(chat.pk)
        if chat is None:
            raise no_chat()
        return do_queue_prompt(chat, text=text, send_queued=send_queued)


def do_queue_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> PeerMessage:
    """From the person, to the chat: taken between its steps while its session runs, else
    with the session's next prompt or tool result. The caller holds the chat's lock."""
    running = chat.status == Status.RUNNING
    route = delivery_table.NEXT_STEP if running else delivery_table.FOR_ITS_SESSION
    if chat.status in (Status.STOPPED, Status.FAILED):  # the person wrote: it may go on
        chat_actions.do_update_chat(chat, status=Status.IDLE, failure="")
    if send_queued:  # "Send held messages on with this prompt", as for a hosted chat
        held = waiting_for_delivery(chat, include_held=True).filter(reason=Reason.HELD)
        requeue(held, delivery_table.FOR_ITS_SESSION)
    out = Outgoing(chat.user, None, PeerMessage.SentBy.PERSON)
    prepared = PreparedSend(
        out, chat, text, None, new_id("chain"), 1, None, route, False, 0, timezone.now()
    )
    message = do_send_message(prepared)
    chat_actions.do_add_entry(
        chat, kind=Entry.Kind.NOTICE, text=QUEUED_NOTICE, message_id=message.pk
    )
    return message
