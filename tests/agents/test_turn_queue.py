"""Turns follow each other per chat, restart a stopped or failed chat, and start on a push."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.models import Turn
from peers import actions as peer_actions
from tests.agents.conftest import claim, fresh, prompt, run_all, texts, wait_until
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def turns_of(chat) -> list[Turn]:
    return list(chat.turns.order_by("requested_at", "id"))


async def test_it_queues_a_prompt_to_a_running_chat_as_the_next_turn(chat, fast_steps):
    await prompt(chat, "work 2")
    first = await claim()
    await prompt(chat, "hello again")
    assert await claim() is None  # one turn at a time per chat

    await TurnRunner("tests").run_turn(first)
    await run_all()

    first, second = await turns_of(chat)
    assert first.state == second.state == Turn.State.DONE
    assert second.started_at >= first.ended_at
    assert await texts(chat) == ["Worked 2 steps.", "hello again"]
    assert (await fresh(chat)).status == "idle"


async def test_it_runs_queued_prompts_one_after_another(chat, fast_steps):
    for text in ("one", "two", "three"):
        await prompt(chat, text)
    await run_all()

    turns = await turns_of(chat)
    assert [turn.state for turn in turns] == [Turn.State.DONE] * 3
    assert all(b.started_at >= a.ended_at for a, b in zip(turns, turns[1:], strict=False))
    assert await texts(chat) == ["one", "two", "three"]


async def test_it_runs_a_prompt_to_a_failed_chat_again(chat, fast_steps):
    await prompt(chat, "fail")
    await run_all()
    assert (await fresh(chat)).status == "failed"

    await prompt(chat, "back to work")
    await run_all()

    assert (await fresh(chat)).status == "idle"
    assert await texts(chat) == ["back to work"]


async def test_it_runs_a_prompt_to_a_stopped_chat_again(chat, fast_steps):
    await sync_to_async(peer_actions.check_stop_chat)(chat)
    assert (await fresh(chat)).status == "stopped"

    await prompt(chat, "carry on")
    await run_all()

    assert (await fresh(chat)).status == "idle"
    assert await texts(chat) == ["carry on"]


async def test_it_runs_turns_of_different_chats_at_once(owner, settings):
    settings.DEMO_STEP_SECONDS = 0.1
    settings.TURNS_PER_ACCOUNT = 5  # one account's share (tests/agents/test_fair_turns.py)
    chats = [await sync_to_async(make_chat)(owner, f"chat-{n}") for n in range(5)]
    for each in chats:
        await prompt(each, "work 3")

    await run_all()

    # Every turn started before any ended: they ran side by side, not one after another.
    turns = await sync_to_async(list)(Turn.objects.filter(chat__in=chats))
    assert max(t.started_at for t in turns) < min(t.ended_at for t in turns)
    for each in chats:
        assert await texts(each) == ["Worked 3 steps."]


async def test_it_starts_a_requested_turn_on_the_wake_up_push(chat, fast_steps):
    # The backstop poll is far away: only the push can start the turn in time.
    runner = TurnRunner("tests", backstop_seconds=120)
    serving = asyncio.create_task(runner.run_forever())
    try:
        await asyncio.wait_for(runner.listening.wait(), 5)
        await asyncio.sleep(0)  # let it finish its first look for turns
        await prompt(chat, "are you there?")
        await wait_until(
            lambda: chat.entries.filter(kind="answer").exists(), "the turn's answer", timeout=10
        )
    finally:
        runner.stop()
        await asyncio.wait_for(serving, 10)
    assert await texts(chat) == ["are you there?"]


async def test_it_fails_the_turns_it_still_runs_when_stopped(chat, settings):
    settings.DEMO_STEP_SECONDS = 0.05
    runner = TurnRunner("tests")
    serving = asyncio.create_task(runner.run_forever())
    await prompt(chat, "work 100000")
    await wait_until(lambda: chat.turns.filter(state="running").exists(), "the turn to start")

    runner.stop()
    await asyncio.wait_for(serving, 10)

    chat = await fresh(chat)
    assert chat.status == "failed"
    (turn,) = await turns_of(chat)
    assert turn.state == Turn.State.FAILED
    assert turn.error == "the turn worker stopped while this turn ran"


async def test_it_a_turn_of_an_agent_kind_with_no_runner_fails_with_a_sentence(chat, fast_steps):
    await prompt(chat, "hello")
    # A row written outside Crosstalk: no adapter runs this kind.
    await sync_to_async(type(chat).objects.filter(pk=chat.pk).update)(agent="nonsense")
    await run_all()

    (turn,) = await turns_of(chat)
    assert turn.state == Turn.State.FAILED
    assert turn.error == "Crosstalk has no runner for agent kind 'nonsense'"
    assert (await fresh(chat)).status == "failed"
