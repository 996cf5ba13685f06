"""A note repeated in a row within a turn (a retry noted at every attempt) is one entry
with a count, updated in place and pushed like any change; anything else stays its own."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from chats.actions import check_prompt, claim_next_turn, do_add_entry, do_mark_turn_done
from chats.models import Entry
from kernel import events

pytestmark = pytest.mark.django_db(transaction=True)

RETRY = "claude is retrying the model: server_error 500 (up to 10 retries)"


def running_turn(chat):
    check_prompt(chat, text="go")
    return claim_next_turn("tests")


def entries(chat) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in chat.entries.exclude(kind="prompt").order_by("id")]


def note(chat, turn, text: str) -> Entry:
    return do_add_entry(chat, kind=Entry.Kind.NOTICE, text=text, turn=turn)


def test_it_counts_a_note_repeated_in_a_row_in_one_entry(chat):
    turn = running_turn(chat)

    first = note(chat, turn, RETRY)
    for _ in range(6):
        again = note(chat, turn, RETRY)

    assert again.pk == first.pk
    assert entries(chat) == [(Entry.Kind.NOTICE, f"{RETRY} (×7)")]


async def test_it_pushes_each_count_so_the_page_shows_it(chat):
    # One event loop throughout: the Redis layer hears a group on the loop that joined it.
    turn = await sync_to_async(running_turn)(chat)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(events.account_group(chat.user_id), channel)

    await sync_to_async(note)(chat, turn, RETRY)
    await sync_to_async(note)(chat, turn, RETRY)

    pushed = [await asyncio.wait_for(layer.receive(channel), 10) for _ in range(2)]
    assert [(p["kind"], p["chat"]) for p in pushed] == [("entry", chat.pk)] * 2
    await layer.group_discard(events.account_group(chat.user_id), channel)


def test_it_keeps_notes_apart_when_something_else_came_between_or_they_differ(chat):
    turn = running_turn(chat)

    note(chat, turn, RETRY)
    note(chat, turn, RETRY)
    do_add_entry(chat, kind=Entry.Kind.ANSWER, text="Working on it.", turn=turn)
    note(chat, turn, RETRY)
    note(chat, turn, "codex: Reconnecting... (stream disconnected)")
    note(chat, turn, RETRY)

    assert entries(chat) == [
        (Entry.Kind.NOTICE, f"{RETRY} (×2)"),
        (Entry.Kind.ANSWER, "Working on it."),
        (Entry.Kind.NOTICE, RETRY),
        (Entry.Kind.NOTICE, "codex: Reconnecting... (stream disconnected)"),
        (Entry.Kind.NOTICE, RETRY),
    ]


def test_it_counts_only_within_one_turn(chat):
    first = running_turn(chat)
    note(chat, first, RETRY)
    do_mark_turn_done(first, final_text="")
    second = running_turn(chat)

    note(chat, second, RETRY)
    note(chat, None, RETRY)
    note(chat, None, RETRY)

    assert entries(chat) == [(Entry.Kind.NOTICE, RETRY)] * 4
