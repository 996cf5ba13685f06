"""Each rule has one home and two forms, a query for lists and a check for one row;
the forms must never disagree, whatever the chat."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from chats.models import Chat
from peers.selectors import is_reachable, reach_since, reachable
from tests.conftest import make_chat

NOW = timezone.now()
RUNS = {"never": None, "long ago": NOW - timedelta(days=30), "lately": NOW - timedelta(hours=1)}
CASES = list(itertools.product([True, False], ["user", "github"], RUNS))


@pytest.fixture
def chats(owner):
    made = []
    for n, (peers, origin, ran) in enumerate(CASES):
        chat = make_chat(owner, f"case-{n}")
        Chat.objects.filter(pk=chat.pk).update(peers=peers, origin=origin, last_ran_at=RUNS[ran])
        made.append(Chat.objects.get(pk=chat.pk))
    return made


def test_it_taking_part_as_a_query_picks_exactly_the_chats_that_take_part(chats):
    listed = set(Chat.objects.taking_part().values_list("pk", flat=True))

    assert {chat.pk for chat in chats if chat.takes_part} == listed
    assert len(listed) == 3  # switched on and started by the person, whenever they ran


def test_it_reachable_as_a_query_picks_exactly_the_chats_a_send_may_reach(chats):
    since = reach_since()
    listed = set(Chat.objects.filter(reachable(since)).values_list("pk", flat=True))

    assert {chat.pk for chat in chats if is_reachable(chat, since=since)} == listed
    assert len(listed) == 2  # switched on and ran lately, from wherever it started


def test_it_a_connect_reaches_the_chats_that_ran_lately_switched_on_or_not(chats):
    listed = Chat.objects.filter(reachable(reach_since(), switching_on=True))

    assert {chat.name for chat in listed} == {
        f"case-{n}" for n, (_, _, ran) in enumerate(CASES) if ran == "lately"
    }
