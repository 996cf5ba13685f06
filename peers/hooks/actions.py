"""The state changes a hook makes beyond chats.actions and peers.actions' deliveries."""

from django.db import transaction

from chats import actions as chat_actions
from chats.models import Chat, Turn
from peers import delivery_table
from peers.actions.deliver import requeue
from peers.selectors import waiting_for_delivery


def do_attached_prompt(chat: Chat, *, prompt: str, session_id: str) -> Turn:
    """The person wrote in a session they run themselves: its turn opens (or a
    runner's turn carries on). Messages waiting for the chat — held ones too, since
    the person wrote — ride the attached turn: its next step takes them, and the
    wake or send-on the runner was to start for them is called off."""
    with transaction.atomic():
        turn, opened = chat_actions.do_hook_prompt(chat, prompt=prompt, session_id=session_id)
        if not opened:
            return turn
        requeue(waiting_for_delivery(chat, include_held=True), delivery_table.NEXT_STEP)
        chat_actions.do_cancel_runner_requests(chat, why="Taken by your own session.")
    return turn
