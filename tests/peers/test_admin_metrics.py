"""Every metric of the admin page against hand-built messages: exact counts and
percentiles, windows respected, the same on SQLite and PostgreSQL."""

from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from peers import metrics
from peers.limits import pair_key
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat

HOUR = timedelta(hours=1)
MINUTE = timedelta(minutes=1)


class Builder:
    """Writes messages and refusals as they would stand after delivery, at given times."""

    def __init__(self, now):
        self.now = now

    def message(self, sender, to, *, ago, state="delivered", path="", latency=None, **fields):
        created = self.now - ago
        user = (sender or to).user
        return PeerMessage.objects.create(
            user=user,
            from_chat=sender,
            to_chat=to,
            sent_by="person" if sender is None else "agent",
            text="hello",
            exchange="x",
            chain="c",
            pair=pair_key(sender.pk, to.pk) if sender else "",
            state=state,
            path=path,
            created_at=created,
            state_changed_at=created,
            delivered_at=created + timedelta(seconds=latency) if latency is not None else None,
            **fields,
        )

    def refusal(self, chat, code, *, ago):
        Activity.objects.create(
            user=chat.user, chat=chat, action="refused", detail=code, created_at=self.now - ago
        )


@pytest.fixture
def data(owner, outsider):
    """The messages of the docstrings below, across two accounts."""
    now = timezone.now()
    build = Builder(now)
    a, b, c = (make_chat(owner, name) for name in ("a", "b", "c"))
    x, y = (make_chat(outsider, name) for name in ("x", "y"))
    # Last hour: a→b, every 2.9 minutes, delivered between steps in 1..20 s.
    for i in range(20):
        build.message(a, b, ago=(59 - 2.9 * i) * MINUTE, path="between_steps", latency=i + 1)
    build.message(b, c, ago=10 * MINUTE, path="turn_prompt", latency=5, woke=True)
    build.message(None, a, ago=44 * MINUTE, path="turn_prompt", latency=7)
    build.message(x, y, ago=30 * MINUTE, path="inbox", latency=2)
    build.message(x, y, ago=31 * MINUTE, path="inbox", latency=4)
    build.message(a, c, ago=5 * MINUTE, state="pending", reason="next_step")
    build.message(a, c, ago=6 * MINUTE, state="pending", reason="next_step")
    build.message(a, c, ago=7 * MINUTE, state="queued", reason="waking", woke=True)
    build.message(c, b, ago=20 * MINUTE, state="cancelled", reason="removed")
    build.message(y, x, ago=40 * MINUTE, state="not_delivered", reason="agent_unavailable")
    build.message(
        y, x, ago=41 * MINUTE, state="not_delivered", reason="agent_unavailable", woke=True
    )
    build.message(x, y, ago=42 * MINUTE, state="not_delivered", reason="turn_failed")
    build.message(None, a, ago=43 * MINUTE, state="not_delivered")
    build.refusal(a, "limit_chat_hour", ago=MINUTE)
    build.refusal(a, "limit_chat_hour", ago=2 * MINUTE)
    build.refusal(x, "no_chat", ago=3 * MINUTE)
    # Earlier today.
    build.message(a, b, ago=2 * HOUR, path="between_steps", latency=100)
    build.message(a, b, ago=3 * HOUR, path="waiting_call", latency=0.5)
    build.message(b, a, ago=5 * HOUR, state="queued", reason="waking", woke=True)
    build.refusal(b, "limit_wakes", ago=2 * HOUR)
    # Earlier this week, and before it.
    build.message(a, b, ago=72 * HOUR, path="as_finished", latency=8)
    build.message(a, b, ago=8 * 24 * HOUR, path="between_steps", latency=1)
    build.refusal(b, "limit_wakes", ago=8 * 24 * HOUR)
    return {"now": now, "chats": {chat.name: chat.pk for chat in (a, b, c, x, y)}}


def path_figures(delivered, p50=None, p95=None, longest=None):
    return {"delivered": delivered, "p50_seconds": p50, "p95_seconds": p95, "max_seconds": longest}


def test_it_counts_the_last_hour_exactly(data):
    result = metrics.compute("hour", now=data["now"]).as_json()
    assert result["window"] == "hour"
    assert result["since"] == (data["now"] - HOUR).isoformat()
    assert result["sent"] == 32
    assert result["by_state"] == {
        "pending": 2,
        "queued": 1,
        "delivered": 24,
        "cancelled": 1,
        "not_delivered": 4,
    }
    assert result["not_delivered"] == {
        "agent_unavailable": 2,
        "turn_failed": 1,
        "worker_stopped": 0,
        "other": 1,
    }
    assert result["wakes"] == 3
    assert result["refusals"] == {"limit_chat_hour": 2, "no_chat": 1}


@pytest.mark.parametrize("sort_below", [metrics.SORT_BELOW, 0])
def test_it_gives_every_path_its_exact_percentiles(data, sort_below, monkeypatch):
    # SQLite sorts a window's few rows, and walks the seconds index for many: both exact.
    monkeypatch.setattr(metrics, "SORT_BELOW", sort_below)
    paths = metrics.compute("hour", now=data["now"]).paths
    assert paths == {
        "between_steps": path_figures(20, 10.5, 19.05, 20.0),
        "as_finished": path_figures(0),
        "waiting_call": path_figures(0),
        "turn_prompt": path_figures(2, 6.0, 6.9, 7.0),
        "inbox": path_figures(2, 3.0, 3.9, 4.0),
        "tool_result": path_figures(0),  # issue 35: with an MCP tool's answer
    }


@pytest.mark.parametrize("sort_below", [metrics.SORT_BELOW, 0])
def test_it_widens_to_the_day_and_the_week(data, sort_below, monkeypatch):
    monkeypatch.setattr(metrics, "SORT_BELOW", sort_below)
    day = metrics.compute("day", now=data["now"])
    assert day.sent == 35 and day.wakes == 4
    assert day.by_state["delivered"] == 26 and day.by_state["queued"] == 2
    assert day.refusals == {"limit_chat_hour": 2, "limit_wakes": 1, "no_chat": 1}
    assert day.paths["between_steps"] == path_figures(21, 11.0, 20.0, 100.0)
    assert day.paths["waiting_call"] == path_figures(1, 0.5, 0.5, 0.5)
    week = metrics.compute("week", now=data["now"])
    assert week.sent == 36
    assert week.paths["as_finished"] == path_figures(1, 8.0, 8.0, 8.0)
    assert week.paths["between_steps"]["delivered"] == 21
    assert week.refusals["limit_wakes"] == 1


def test_it_ranks_the_busiest_pairs_with_their_peak_in_one_window(data):
    ids = data["chats"]
    pairs = metrics.compute("hour", now=data["now"]).busiest_pairs
    found = [(sorted(pair.chats), pair.messages, pair.peak) for pair in pairs]
    assert found == [
        (sorted([ids["a"], ids["b"]]), 20, 6),  # every 2.9 minutes: 6 within 15
        (sorted([ids["x"], ids["y"]]), 5, 5),
        (sorted([ids["a"], ids["c"]]), 3, 3),
        (sorted([ids["b"], ids["c"]]), 2, 2),
    ]
    assert metrics.compute("day", now=data["now"]).busiest_pairs[0].messages == 23  # b→a at 5 h too


def test_it_counts_a_message_sent_exactly_at_the_window_start(owner):
    now = timezone.now()
    build = Builder(now)
    a, b = make_chat(owner, "a"), make_chat(owner, "b")
    build.message(a, b, ago=HOUR, path="inbox", latency=1)
    build.message(a, b, ago=HOUR + timedelta(microseconds=1), path="inbox", latency=1)
    result = metrics.compute("hour", now=now)
    assert result.sent == 1 and result.paths["inbox"]["delivered"] == 1


def test_it_answers_zeros_and_nulls_with_no_messages(db):
    result = metrics.compute("week", now=timezone.now()).as_json()
    assert result["sent"] == 0 and result["wakes"] == 0 and result["busiest_pairs"] == []
    assert set(result["paths"]) == set(PeerMessage.Path.values)
    assert all(figures == path_figures(0) for figures in result["paths"].values())


def test_it_buckets_messages_and_wakes_over_time(data):
    buckets = metrics.compute("hour", now=data["now"]).over_time
    assert sum(sent for _, sent, _ in buckets) == 32
    assert sum(wakes for _, _, wakes in buckets) == 3
    assert len(buckets) in (12, 13)  # five-minute bars; the first may be partial
    assert all(later > earlier for (earlier, *_), (later, *_) in pairwise(buckets))
