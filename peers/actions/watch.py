"""notifyWhenIdle's subscription row (the notice it ends with is peers.actions.notices').

Kept apart from the notices so a send can subscribe in its own transaction
(peers.actions.send) without importing what sends the notices."""

from datetime import datetime, timedelta

from django.db.models import Q

from chats.models import Chat
from peers.models import IdleWatch, Limits


def do_watch(
    watcher: Chat, watched: Chat, *, now: datetime, limits: Limits, message=None
) -> IdleWatch:
    """`watcher` hears once when `watched` next ends a turn; the caller holds the account
    lock. A subscription still open between the two is renewed, not doubled, so one turn's
    end is one notice."""
    expires_at = now + timedelta(hours=limits.reach_hours)
    watch = open_watches(watched).filter(from_chat=watcher).first()
    if watch is not None:
        watch.expires_at = expires_at
        watch.message = message or watch.message
        watch.save(update_fields=["expires_at", "message"])
        return watch
    return IdleWatch.objects.create(
        user_id=watcher.user_id,
        from_chat=watcher,
        to_chat=watched,
        message=message,
        created_at=now,
        expires_at=expires_at,
    )


def do_end_watches_of(chat: Chat, *, now: datetime) -> int:
    """A deleted chat: its subscriptions, both ways, end with no notice (nothing of it is
    left to hear or to be heard of)."""
    mine = Q(to_chat=chat) | Q(from_chat=chat)
    return IdleWatch.objects.filter(mine, ended_at__isnull=True).update(
        ended_at=now, outcome=IdleWatch.Outcome.UNREACHABLE
    )


def open_watches(watched: Chat):
    return IdleWatch.objects.filter(to_chat=watched, ended_at__isnull=True)
