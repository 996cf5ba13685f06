"""seed_messages: a week of varied messages, fast, that the metrics then count."""

from datetime import timedelta
from io import StringIO

from django.core.management import call_command
from django.db.models import Count, Max, Min, Sum
from django.utils import timezone

from accounts.models import User
from peers import metrics
from peers.actions.counters import minute_of, start_of
from peers.models import Activity, MessageCount, PeerMessage


def test_it_seeds_a_realistic_week(db):
    out = StringIO()
    call_command("seed_messages", count=2000, accounts=3, stdout=out)
    assert "Seeded 2000 messages" in out.getvalue()
    assert User.objects.filter(username__startswith="seed-").count() == 3
    assert PeerMessage.objects.count() == 2000
    states = set(PeerMessage.objects.values_list("state", flat=True))
    assert states == set(PeerMessage.State.values)
    assert set(PeerMessage.objects.exclude(path="").values_list("path", flat=True)) == set(
        PeerMessage.Path.values
    )
    span = PeerMessage.objects.aggregate(first=Min("created_at"), last=Max("created_at"))
    assert span["last"] - span["first"] > timedelta(days=6)
    assert Activity.objects.filter(action="refused").count() == 100
    week = metrics.compute("week", now=timezone.now())
    assert week.sent == 2000 and week.wakes > 0
    assert all(figures["delivered"] > 0 for figures in week.paths.values())


def test_it_starts_over_with_reset(db):
    call_command("seed_messages", count=100, accounts=2, stdout=StringIO())
    call_command("seed_messages", count=50, accounts=2, reset=True, stdout=StringIO())
    assert PeerMessage.objects.count() == 50
    assert User.objects.filter(username__startswith="seed-").count() == 2


def test_it_counts_the_last_day_for_the_limits(db):
    call_command("seed_messages", count=2000, accounts=2, stdout=StringIO())
    day_ago = minute_of(timezone.now()) - 24 * 60
    recent = PeerMessage.objects.filter(created_at__gte=start_of(day_ago))
    assert recent.exists()
    rows = MessageCount.objects.filter(kind="chat", minute__gte=day_ago)
    counted = dict(rows.values("key").annotate(n=Sum("count")).values_list("key", "n"))
    sent = recent.exclude(from_chat=None).values("from_chat").annotate(n=Count("*"))
    assert counted == {row["from_chat"]: row["n"] for row in sent}
