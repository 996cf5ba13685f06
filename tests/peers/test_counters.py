"""The limits count from per-minute rows (peers.actions.counters) and stay exact: the
first send refused is exactly the one past the limit, wherever the window starts
inside a minute, after old rows are pruned, and whatever became of the messages."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db.models import Sum

from chats.actions import do_delete_chats
from kernel.refusals import Refusal
from peers.actions import (
    check_cancel_message,
    check_send_as_person,
    check_send_message,
    do_set_limits,
)
from peers.actions.counters import HORIZON_MINUTES, PRUNE_AFTER_MINUTES, do_prune_counts, minute_of
from peers.actions.limits import CACHED
from peers.models import MessageCount, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable

HIGH = dict.fromkeys(
    ("chat_per_hour", "wakes_per_hour", "pair_per_window", "pair_without_you", "chain_without_you"),
    10000,
)


@pytest.fixture
def clock(sender, recipient):
    """Stopped at 20 s past a minute (the chats ran a moment before)."""
    now = datetime.now(UTC).replace(second=20, microsecond=0) + timedelta(minutes=1)
    # Two tests in the same minute save limits stamped alike: the process's copy of
    # the last test's row would pass for this one's.
    CACHED.clear()
    with time_machine.travel(now, tick=False) as traveller:
        reachable(sender, recipient)
        yield traveller


def send(sender, recipient) -> PeerMessage:
    return check_send_message(sender, to=recipient.pk, text="which port?")


def refused(sender, recipient) -> str:
    with pytest.raises(Refusal) as refusal:
        send(sender, recipient)
    return refusal.value.code


def test_it_refuses_the_send_past_the_hourly_limit_exactly_as_the_window_moves(
    sender, recipient, clock
):
    do_set_limits({**HIGH, "chat_per_hour": 4})
    start = datetime.now(UTC)
    for offset in (0, 25, 50, 20 * 60):  # three in two minutes, one later
        clock.move_to(start + timedelta(seconds=offset))
        send(sender, recipient)
    clock.move_to(start + timedelta(minutes=59))
    assert refused(sender, recipient) == "limit_chat_hour"
    # An hour after the first, it leaves the window: one more, and no other.
    clock.move_to(start + timedelta(hours=1, seconds=1))
    send(sender, recipient)
    assert refused(sender, recipient) == "limit_chat_hour"
    # 25 s past the minute: the window starts inside it; the one sent at 25 s is
    # still in it (counted exactly, not by its minute's row) ...
    clock.move_to(start + timedelta(hours=1, seconds=5))
    assert refused(sender, recipient) == "limit_chat_hour"
    # ... until it leaves, a microsecond later than its own hour.
    clock.move_to(start + timedelta(hours=1, seconds=25, microseconds=1))
    send(sender, recipient)
    assert refused(sender, recipient) == "limit_chat_hour"
    assert PeerMessage.objects.filter(from_chat=sender).count() == 6


def test_it_counts_a_pair_both_ways_across_the_minutes_of_its_window(sender, recipient, clock):
    do_set_limits({**HIGH, "pair_per_window": 3, "pair_window_minutes": 2})
    start = datetime.now(UTC)
    send(sender, recipient)
    clock.move_to(start + timedelta(seconds=50))
    send(recipient, sender)
    clock.move_to(start + timedelta(seconds=70))
    send(sender, recipient)
    assert refused(recipient, sender) == "limit_pair_window"
    # Two minutes and one second after the first: it left, the one at 50 s did not.
    clock.move_to(start + timedelta(minutes=2, seconds=1))
    send(recipient, sender)
    assert refused(sender, recipient) == "limit_pair_window"


def test_it_counts_the_agents_since_the_person_wrote_within_the_same_minute(
    sender, recipient, clock
):
    do_set_limits({**HIGH, "pair_without_you": 2})
    start = datetime.now(UTC)
    send(sender, recipient)
    clock.move_to(start + timedelta(seconds=10))
    check_send_as_person(sender.user, from_chat=sender.pk, to=recipient.pk, text="go on")
    sender.refresh_from_db()
    recipient.refresh_from_db()
    # Same minute: the agent's message before the person's does not count, after does.
    clock.move_to(start + timedelta(seconds=20))
    send(sender, recipient)
    clock.move_to(start + timedelta(minutes=3))
    send(recipient, sender)
    assert refused(sender, recipient) == "limit_pair_without_you"


def test_it_counts_what_its_pruned_rows_held_from_the_messages(sender, recipient, clock):
    do_set_limits({**HIGH, "pair_without_you": 3})
    start = datetime.now(UTC)
    for _ in range(3):
        send(sender, recipient)
    rows = MessageCount.objects.count()  # chat, pair, pair_agent (and wakes) of that minute
    later = start + timedelta(minutes=PRUNE_AFTER_MINUTES + 5)
    clock.move_to(later)
    reachable(sender, recipient)
    assert do_prune_counts(later) == rows >= 3
    assert not MessageCount.objects.exists()
    # The person never wrote: the three agents' messages of a day ago still count.
    assert refused(sender, recipient) == "limit_pair_without_you"


def test_it_keeps_every_row_a_check_reads(sender, recipient, clock):
    do_set_limits(HIGH)
    start = datetime.now(UTC)
    send(sender, recipient)
    rows = MessageCount.objects.filter(minute=minute_of(start)).count()
    later = start + timedelta(minutes=HORIZON_MINUTES + 60)
    assert do_prune_counts(later) == 0
    assert MessageCount.objects.filter(minute=minute_of(start)).count() == rows >= 3


def test_it_its_rows_add_up_to_the_messages_whatever_became_of_them(owner, sender, recipient):
    do_set_limits(HIGH)
    idle = make_chat(owner, "idle", peers=True)
    reachable(idle)
    first = send(sender, recipient)
    send(recipient, sender)
    send(sender, idle)  # wakes it
    check_send_as_person(owner, from_chat=None, to=recipient.pk, text="from me")
    check_send_as_person(owner, from_chat=sender.pk, to=recipient.pk, text="as sender")
    # A cancelled message still counts, as it did when the limits counted messages.
    assert check_cancel_message(owner, message_id=first.pk).state == "cancelled"

    def rows(kind, **keys) -> int:
        found = MessageCount.objects.filter(kind=kind, **keys)
        return found.aggregate(total=Sum("count"))["total"] or 0

    messages = PeerMessage.objects
    assert rows("chat", key=sender.pk) == messages.filter(from_chat=sender).count() == 3
    pair = messages.filter(pair=first.pair)
    assert rows("pair", key=first.pair) == pair.count() == 3
    assert rows("pair_agent", key=first.pair) == pair.filter(sent_by="agent").count() == 2
    assert rows("wakes", user=owner) == messages.filter(woke=True).count() >= 1


def test_it_its_rows_go_with_the_chats(owner, sender, recipient):
    send(sender, recipient)
    do_delete_chats(owner)
    assert not MessageCount.objects.exists()
