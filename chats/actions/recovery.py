"""Turns no worker will end: left running by a restart, or by a worker that stopped renewing."""

from collections.abc import Callable

from django.db import transaction

from chats import events
from chats.actions.attached import ATTACHED
from chats.actions.leases import WORKER_LOST, lease_expired
from chats.actions.turns import do_fail_turn
from chats.models import Chat, Turn

Status = Chat.Status


def do_recover_interrupted_turns(*, hold: Callable[[Chat], None]) -> int:
    """After a restart of the only runner (the embedded default): the turns it left
    running can never finish. Attached sessions' turns are their hooks' to end.
    `hold(chat)` keeps the chat's messages for the person, as for any failed turn."""
    with transaction.atomic():
        stuck = Turn.objects.filter(state=Turn.State.RUNNING).exclude(worker__startswith=ATTACHED)
        stuck = list(stuck.select_related("chat"))
        for turn in stuck:
            if do_fail_turn(turn, error="Crosstalk restarted while this turn ran."):
                hold(turn.chat)
        Chat.objects.filter(status=Status.WAITING).update(status=Status.IDLE)
    return len(stuck)


def do_reclaim_expired_turns(now, *, hold: Callable[[Chat], None]) -> int:
    """Fail the turns whose worker stopped renewing; the turns requested behind them
    may start. `hold(chat)` runs in the same transaction: peers passes
    peers.actions.hold_for_person, so the chat's messages wait for the person."""
    # An attached session's turn has no worker to renew it: its hooks end it.
    expired = Turn.objects.filter(lease_expired(now), state=Turn.State.RUNNING).exclude(
        worker__startswith=ATTACHED
    )
    reclaimed = 0
    for turn in expired.select_related("chat"):
        with transaction.atomic():
            if not do_fail_turn(turn, error=WORKER_LOST, lease_expired_by=now):
                continue  # its worker renewed it, or ended it, just now
            hold(turn.chat)
            events.wake_runners()
        reclaimed += 1
    return reclaimed
