"""What happens when a turn ends: the one place, whoever ends it — the runner, an
attached session's Stop hook (agents.hooks), restart and lease recovery
(agents.recovery). Each half is a plain function of the app that owns it, called here
in this order; every push leaves after the commit of the transaction it was made in.

finish(turn, final_text=…, background=…): the turn ran to its end.
  1. One transaction: chats marks it done under the chat's row lock (its final text
     becomes the answer entry; the chat reads idle, or waiting while background work
     goes on), and origins keeps the outside answer when the turn answers its origin's
     request (an OriginReply row, so it commits or rolls back with the turn's end).
  2. Committed. peers answers with the final text each message the turn got and did
     not write back to, each answer in a transaction of its own (a refused or failed
     answer never undoes the end; docs/reliability.md).
  3. Unless background work goes on, peers sends the chat's queue on (its own
     transaction), even when answering raised.
  A turn that no longer runs (the person stopped it) is left alone: False; what it
  took and did not answer goes back (peers' give_back_stopped: held, or not delivered).

fail(turn, error=…): the turn could not run to its end. One transaction: when its
  agent never started, peers marks the messages it took not delivered (their senders
  are told) whatever else happens; then, if the turn still runs, chats marks it failed
  (a notice; the chat reads failed), peers gives back what the turn took and did not
  answer (held again, its senders told once) and holds the chat's messages until the
  person writes, and origins keeps FAILED_TURN as the outside answer (never the error, which
  may name the server's paths). With lease_expired_by, only a turn whose lease ran out
  by then fails (its worker may have renewed it meanwhile).

stopped(turn): the person stopped it; what it took after the stop goes back too.

After a finish or a failure, in a transaction of its own, peers sends the one notice
each notifyWhenIdle subscription to the chat waits for (a stop sends it from
peers' check_stop_chat, whoever ran the turn).

end_background(chat): its background work is over. The chat goes from waiting to
  idle (its own transaction); then peers sends its queue on, as step 3 above.
"""

from django.db import transaction

from chats import actions as chat_actions
from chats.models import Chat, Turn
from origins.actions import FAILED_TURN, note_turn_finished
from peers import actions as peer_actions


def finish(turn: Turn, *, final_text: str, background: bool = False) -> bool:
    with transaction.atomic():
        if not chat_actions.do_mark_turn_done(turn, final_text=final_text, background=background):
            peer_actions.give_back_stopped(turn)
            return False
        answer_outside(turn, final_text)
    try:
        peer_actions.answer_from_final_text(turn)
    finally:
        if not background:  # the background work's end sends it on
            peer_actions.send_on_queue(turn.chat)
        peer_actions.notify_watchers(turn.chat)
    return True


def fail(turn: Turn, *, error: str, never_started: bool = False, lease_expired_by=None) -> bool:
    with transaction.atomic():
        if never_started:
            peer_actions.fail_delivery(turn, error)
        failed = chat_actions.do_mark_turn_failed(
            turn, error=error, lease_expired_by=lease_expired_by
        )
        if not failed:
            return False
        peer_actions.give_back_failed(turn, error=error)
        peer_actions.hold_for_person(turn.chat)
        answer_outside(turn, FAILED_TURN)
    peer_actions.notify_watchers(turn.chat)
    return True


def stopped(turn: Turn) -> None:
    """The person stopped the turn: check_stop_chat gave back what it had taken; a
    message it took after the stop (it was claimed just before) goes back here."""
    with transaction.atomic():
        peer_actions.give_back_stopped(turn)


def end_background(chat: Chat) -> bool:
    if not chat_actions.do_mark_background_done(chat):
        return False
    peer_actions.send_on_queue(chat)
    return True


def answer_outside(turn: Turn, text: str) -> None:
    # One cheap test before a query on every turn's end; which turns answer outside is
    # origins.selectors.answered_request's to say.
    if turn.chat.from_outside:
        note_turn_finished(turn, text)
