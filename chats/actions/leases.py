"""Leases: a worker that dies (SIGKILL, a lost machine) cannot end its turns, so each
running turn carries a lease its worker renews; any worker fails it once it runs out."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from chats.models import Turn


def lease_seconds() -> float:
    """How long a lease lasts: two thirds of TURN_LEASE_SECONDS, so that with a
    check every sixth of it a dead worker's turn fails within TURN_LEASE_SECONDS."""
    return settings.TURN_LEASE_SECONDS * 2 / 3


def lease_end(now):
    return now + timedelta(seconds=lease_seconds())


def lease_expired(now) -> Q:
    # A turn started before leases existed has none: it counts from its start.
    unleased = Q(lease_until__isnull=True, started_at__lt=now - timedelta(seconds=lease_seconds()))
    return Q(lease_until__lt=now) | unleased


def do_renew_leases(worker: str) -> int:
    """The worker is alive: every turn it still runs keeps its lease."""
    running = Turn.objects.filter(worker=worker, state=Turn.State.RUNNING)
    return running.update(lease_until=lease_end(timezone.now()))
