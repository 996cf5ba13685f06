"""An attached session's prompt opens its turn and takes what waits. (Every turn's end,
the runner's or a session's, is agents.turns': it calls peers' halves,
answer_from_final_text, send_on_queue, hold_for_person and fail_delivery.)"""

from django.db import transaction

from chats import actions as chat_actions
from chats.models import Chat, Entry
from peers import delivery_table
from peers.actions.deliver import requeue, take
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
    the person's own terminal: for a stopped chat, the session registered before the
    person stopped it (a SessionStart after the Stop gives no right to lift it); for
    a failed one, the registered session. A stopped chat stays stopped for any other
    session's prompt, which is noted."""
    stopped = chat.status == Chat.Status.STOPPED
    registered = chat.stop_session_id if stopped else chat.session_id
    own_session = bool(registered) and session_id == registered
    with transaction.atomic():
        if stopped and not own_session:
            chat_actions.do_add_entry(
                chat, kind=Entry.Kind.NOTICE, text=FOREIGN_PROMPT.format(session=session_id)
            )
            return []
        if stopped:  # the person's own session lifts it, and is the registered one again
            chat_actions.do_set_session_id(chat, session_id=session_id)
        turn, opened = chat_actions.do_hook_prompt(chat, prompt=prompt, session_id=session_id)
        if not opened:
            return []
        chat_actions.do_cancel_runner_requests(chat, why="Taken by your own session.")
        waiting = waiting_for_delivery(chat, include_held=own_session)
        if not chat.peers:  # its hooks give it nothing: they wait as pending
            requeue(waiting, delivery_table.NEXT_STEP)
            return []
        return take(waiting, path=PeerMessage.Path.TURN_PROMPT, turn=turn)
