"""A CLI turn's events in the conversation: a step per tool call, one answer entry
that grows, and text deltas coalesced so a chatty stream costs few writes."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from agents.adapters.claude_code import parse_claude_line
from agents.adapters.events import Final, Notice, Said, ToolCall, ToolDone, Trouble
from agents.adapters.output import TurnOutput
from chats.actions import check_prompt, claim_next_turn, do_mark_turn_done
from chats.models import Entry
from kernel import events
from tests.agents.test_cli_parsers import SAMPLES

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def running_turn(chat):
    check_prompt(chat, text="go")
    return claim_next_turn("tests")


@sync_to_async
def entries(chat) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in chat.entries.exclude(kind="prompt").order_by("id")]


async def entry_pushes(layer, channel: str) -> int:
    """How many entry pushes reached the account's pages (nothing more is on its way)."""
    count = 0
    while True:
        try:
            event = await asyncio.wait_for(layer.receive(channel), 0.5)
        except TimeoutError:
            return count
        count += event.get("kind") == "entry"


async def test_it_coalesces_a_stream_of_deltas_into_a_few_writes(chat):
    turn = await running_turn(chat)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(events.account_group(chat.user_id), channel)
    await entry_pushes(layer, channel)  # what the prompt and the claim pushed

    output = TurnOutput(turn, flush_seconds=3600)
    for number in range(500):
        await output.take([Said(f"{number} ", delta=True)])
    await output.flush()

    # One write shows the answer at its first words, one more at the end: not 500.
    assert await entry_pushes(layer, channel) == 2
    ((kind, text),) = await entries(chat)
    assert kind == "answer" and text.startswith("0 1 2 ") and text.endswith(" 499 ")
    await layer.group_discard(events.account_group(chat.user_id), channel)


async def test_it_shows_steps_between_what_the_agent_says_and_ends_on_the_final_text(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)

    await output.take([Said("Let me look."), ToolCall("Bash", {"command": "ls -la"})])
    await output.take([Said("Found ", delta=True), Said("it.", delta=True)])
    await output.flush()
    await sync_to_async(do_mark_turn_done)(turn, final_text=output.final_text)

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "Let me look."),
        (Entry.Kind.TOOL, 'Bash · ls -la\n{\n  "command": "ls -la"\n}'),
        # The answer shown as it grew became the final text: not a second entry.
        (Entry.Kind.ANSWER, "Found it."),
    ]
    assert output.final_text == "Found it."


async def test_it_a_note_splits_the_answer_and_a_retried_error_shows_once(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=3600)

    await output.take([Said("first", delta=True), Said(" words", delta=True)])
    await output.take([Notice("gemini: Agent execution blocked: a message came")])
    await output.take([Said("late", delta=True), Said(" answer", delta=True)])
    for _ in range(3):
        assert not await output.take([Trouble("codex: Reconnecting...", retrying=True)])
    assert await output.take([])  # any other line of the stream is progress
    await output.flush()

    assert await entries(chat) == [
        ("answer", "first words"),
        ("notice", "gemini: Agent execution blocked: a message came"),
        ("answer", "late answer"),
        ("notice", "codex: Reconnecting... (×3)"),
    ]
    assert output.final_text == "late answer"


async def test_it_the_words_before_a_last_note_stay_the_final_text(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn)

    await output.take([Said("all done", delta=True), Notice("gemini: a warning")])
    await output.flush()

    assert output.final_text == "all done"


async def test_it_a_note_ends_the_growing_answer_so_what_follows_is_its_own(chat):
    """Gemini streams deltas and warns as AfterAgent blocks: the words before the
    note and after it are two answers, never run together."""
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=3600)

    await output.take([Said("First part ", delta=True), Said("done.", delta=True)])
    await output.take([Notice("Agent execution blocked: a message came.")])
    await output.take([Said("It listens ", delta=True), Said("on 8080.", delta=True)])
    await output.flush()
    await sync_to_async(do_mark_turn_done)(turn, final_text=output.final_text)

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "First part done."),
        (Entry.Kind.NOTICE, "Agent execution blocked: a message came."),
        (Entry.Kind.ANSWER, "It listens on 8080."),
    ]


async def test_it_a_whole_message_shows_at_once_even_right_after_another_write(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=3600)

    await output.take([Said("Done, I think."), Said("Now really done.")])

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "Done, I think."),
        (Entry.Kind.ANSWER, "Now really done."),
    ]


async def test_it_a_note_after_the_answer_does_not_double_it_at_the_end(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)

    await output.take([Said("Done."), Notice("Claude was refused: Bash (permission mode).")])
    await sync_to_async(do_mark_turn_done)(turn, final_text="Done.")

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "Done."),
        (Entry.Kind.NOTICE, "Claude was refused: Bash (permission mode)."),
    ]


async def take_sample(output: TurnOutput, name: str) -> None:
    for line in (SAMPLES / name).read_text().splitlines():
        await output.take(parse_claude_line(line))
    await output.flush()


async def test_it_claudes_streamed_answer_grows_in_one_entry_that_its_whole_text_completes(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)  # every piece written: the most entries it could

    await take_sample(output, "claude-2.1.332-partial-messages.jsonl")
    await sync_to_async(do_mark_turn_done)(turn, final_text=output.final_text)

    assert await entries(chat) == [
        (Entry.Kind.TOOL, 'Bash · echo hi\n{\n  "command": "echo hi"\n}'),
        (Entry.Kind.ANSWER, "Alpha beta gamma delta epsilon"),
    ]


async def test_it_claudes_words_around_a_step_are_two_answers_each_shown_once(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)

    await output.take([Said("Let me ", delta=True), Said("look.", delta=True)])
    await output.take([Said("Let me look."), ToolCall("Bash", {"command": "ls"})])
    await output.take([ToolDone(), Said("Found ", delta=True)])
    assert (await entries(chat))[-1] == (Entry.Kind.ANSWER, "Found ")  # growing, shown
    await output.take([Said("it.", delta=True), Said("Found it."), Final("Found it.")])
    await output.flush()
    await sync_to_async(do_mark_turn_done)(turn, final_text=output.final_text)

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "Let me look."),
        (Entry.Kind.TOOL, 'Bash · ls\n{\n  "command": "ls"\n}'),
        (Entry.Kind.ANSWER, "Found it."),
    ]


async def test_it_a_whole_text_that_is_not_what_was_streamed_loses_neither(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)

    await output.take([Said("half a thought", delta=True), Said("Another message.")])

    assert await entries(chat) == [
        (Entry.Kind.ANSWER, "half a thought"),
        (Entry.Kind.ANSWER, "Another message."),
    ]


async def test_it_a_claude_api_error_is_no_answer_and_becomes_the_turns_reason(chat):
    turn = await running_turn(chat)
    output = TurnOutput(turn, flush_seconds=0)

    await take_sample(output, "claude-2.1.332-api-error.jsonl")

    assert await entries(chat) == []  # no answer; the turn's failure is its one notice
    assert output.failure.startswith("claude reported an error: API Error: 500 fake failure")
    assert output.trouble == output.failure and output.final_text == ""
