"""Every runner keeps the leases of its own turns and takes back those of dead workers.

A worker killed with SIGKILL ends nothing: its turns would read `running` for good.
So while a runner serves, this loop renews the leases of the turns it runs and fails
every turn whose lease ran out (agents.recovery.reclaim_expired_turns), whichever
worker ran it, as any failed turn fails (agents.turns.fail).
The runner starts it beside its wake listener (one line in serve())."""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

from django.conf import settings
from django.utils import timezone

from agents.dbthread import in_db_thread
from agents.recovery import reclaim_expired_turns
from chats.actions import do_renew_leases
from kernel.idempotency import do_delete_old_answers
from peers.actions import do_expire_watches, do_prune_counts

logger = logging.getLogger(__name__)


def check_seconds() -> float:
    """Renew and look for expired leases this often: a sixth of TURN_LEASE_SECONDS, so a
    lease (two thirds of it) survives three missed renewals."""
    return settings.TURN_LEASE_SECONDS / 6


async def keep_leases(worker_id: str) -> None:
    while True:
        try:
            await in_db_thread(renew_and_reclaim)(worker_id)
        except Exception:
            # The database is away: nothing to renew against; the next round tries again.
            logger.warning("Could not renew turn leases; trying again shortly.", exc_info=True)
        await asyncio.sleep(check_seconds())


def renew_and_reclaim(worker_id: str) -> None:
    do_renew_leases(worker_id)
    now = timezone.now()
    do_delete_old_answers(now)
    do_prune_counts(now)
    do_expire_watches(now)
    reclaimed = reclaim_expired_turns(now)
    if reclaimed:
        logger.warning("Failed %s turns whose worker stopped renewing their lease.", reclaimed)


async def alongside(runner, listener: Awaitable[None]) -> None:
    """Run the runner's wake listener with the lease loop beside it; a cancel stops both."""
    keeper = asyncio.create_task(keep_leases(runner.worker_id), name="turn-leases")
    try:
        await listener
        await keeper  # the listener may end early (no channel layer); leases go on
    finally:
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
