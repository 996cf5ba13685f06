"""Turns no worker will end: left running by a restart, or by a worker that stopped
renewing. Each fails the way a runner's failure does (agents.turns.fail)."""

from django.db import transaction

from agents import turns
from chats.actions import ATTACHED, lease_expired
from chats.models import Chat, Turn
from kernel import events

RESTARTED = "Crosstalk restarted while this turn ran."
WORKER_LOST = "the worker running this turn stopped"


def recover_interrupted_turns() -> int:
    """After a restart of the only runner (the embedded default): the turns it left
    running can never finish, and the background work it ran is gone. Attached
    sessions' turns are their hooks' to end."""
    with transaction.atomic():
        stuck = Turn.objects.filter(state=Turn.State.RUNNING).exclude(worker__startswith=ATTACHED)
        stuck = list(stuck.select_related("chat"))
        for turn in stuck:
            turns.fail(turn, error=RESTARTED)
        for chat in Chat.objects.filter(status=Chat.Status.WAITING):
            turns.end_background(chat)
    return len(stuck)


def reclaim_expired_turns(now) -> int:
    """Fail the turns whose worker stopped renewing; the turns requested behind them
    may start."""
    # An attached session's turn has no worker to renew it: its hooks end it.
    expired = Turn.objects.filter(lease_expired(now), state=Turn.State.RUNNING).exclude(
        worker__startswith=ATTACHED
    )
    reclaimed = 0
    for turn in expired.select_related("chat"):
        if not turns.fail(turn, error=WORKER_LOST, lease_expired_by=now):
            continue  # its worker renewed it, or ended it, just now
        events.wake_runners()
        reclaimed += 1
    return reclaimed
