"""A turn's two ends as peers sees them: an attached session's prompt opens one and
takes what waits; every turn's end, the runner's or a session's, answers its
senders with its final text and sends the queue on (finish_turn, the one place)."""

from django.db import transaction

from chats import actions as chat_actions
from chats.models import Chat, Entry, Turn
from peers import delivery_table
from peers.actions.answers import answer_from_final_text
from peers.actions.deliver import requeue, send_on_queue, take
from peers.models import PeerMessage
from peers.selectors import waiting_for_delivery

FOREIGN_PROMPT = (
    "A prompt came from a session other than the one attached ({session}); "
    "the chat stays stopped and its held messages wait for you."
)


def do_attached_prompt(chat: Chat, *, prompt: str, session_id: str) -> list[PeerMessage]:
    """The person wrote in a session they run themselves: its turn opens (or a
    running turn carries on). What waits for the chat goes in with this prompt
    (path turn_prompt) and is returned, to be framed into it; the wake or
    send-on the runner was to start for them is called off.

    Held messages (a stopped or failed chat) go in only when the prompt comes from
    the session that registered at SessionStart: the person's own terminal. A
    stopped chat stays stopped for any other session's prompt, which is noted."""
    own_session = bool(chat.session_id) and session_id == chat.session_id
    with transaction.atomic():
        if chat.status == Chat.Status.STOPPED and not own_session:
            chat_actions.do_add_entry(
                chat, kind=Entry.Kind.NOTICE, text=FOREIGN_PROMPT.format(session=session_id)
            )
            return []
        turn, opened = chat_actions.do_hook_prompt(chat, prompt=prompt, session_id=session_id)
        if not opened:
            return []
        chat_actions.do_cancel_runner_requests(chat, why="Taken by your own session.")
        waiting = waiting_for_delivery(chat, include_held=own_session)
        if not chat.peers:  # its hooks give it nothing: they wait as pending
            requeue(waiting, delivery_table.NEXT_STEP)
            return []
        return take(waiting, path=PeerMessage.Path.TURN_PROMPT, turn=turn)


def finish_turn(turn: Turn, *, final_text: str, background: bool = False) -> bool:
    """A turn ran to its end: it is finished, its final text answers the messages it
    got, and (unless background work goes on, whose end sends it) the queue is sent
    on. False, and nothing else done, when the person stopped it meanwhile."""
    if not chat_actions.do_finish_turn(turn, final_text=final_text, background=background):
        return False
    try:
        answer_from_final_text(turn)
    finally:
        if not background:
            send_on_queue(turn.chat)
    return True
