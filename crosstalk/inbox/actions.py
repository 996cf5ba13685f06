"""The inbox's one change: items marked done, kept per account on the server."""

from django.db import transaction
from django.utils import timezone

from crosstalk.inbox.selectors import find_items, inbox_items
from crosstalk.models import InboxDone
from kernel import events
from kernel.refusals import Refusal

MOST_AT_ONCE = 500


def check_mark_done(user, *, items: list[str]) -> list[str]:
    """Every id must be an item of this account: another account's item, or one that
    does not exist, is not_found alike (and nothing is marked)."""
    found = find_items(user, items)
    if len(found) != len(dict.fromkeys(items)):
        raise Refusal("not_found", "No such inbox item; list the inbox for the ids.")
    return do_mark_done(user, found)


def check_mark_all_done(user) -> list[str]:
    """Every item now waiting (the newest MOST_AT_ONCE; again for more)."""
    return do_mark_done(user, [item.id for item in inbox_items(user, limit=MOST_AT_ONCE, offset=0)])


def do_mark_done(user, item_ids: list[str]) -> list[str]:
    now = timezone.now()
    rows = [InboxDone(user=user, item=item_id, done_at=now) for item_id in item_ids]
    with transaction.atomic():
        InboxDone.objects.bulk_create(rows, ignore_conflicts=True)
        events.publish(user.pk, "inbox")
    return item_ids
