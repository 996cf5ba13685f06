"""The demo agent's directives, run by the turn runner (docs/demo-agent.md)."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.models import Entry, Turn
from chats.serializers import chat_json
from peers import actions as peer_actions
from tests.agents.conftest import claim, fresh, fresh_turn, prompt, run_all, texts, wait_until
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_works_n_steps_while_running_then_answers(chat, fast_steps):
    await prompt(chat, "work 3")
    turn = await claim()
    assert (await fresh(chat)).status == "running"

    await TurnRunner("tests").run_turn(turn)

    chat = await fresh(chat)
    assert chat.status == "idle"
    assert chat.last_answered == "Worked 3 steps."
    assert await texts(chat) == ["Worked 3 steps."]
    turn = await fresh_turn(turn)
    assert turn.state == Turn.State.DONE and turn.input == "work 3"


async def test_it_takes_each_step_of_demo_step_seconds(chat, settings):
    settings.DEMO_STEP_SECONDS = 0.05
    await prompt(chat, "work 4")
    loop = asyncio.get_running_loop()
    started = loop.time()
    await run_all()
    assert loop.time() - started >= 0.2
    assert await texts(chat) == ["Worked 4 steps."]


async def test_it_fails_the_turn_when_told_to(chat, fast_steps):
    await prompt(chat, "fail")
    await run_all()

    chat = await fresh(chat)
    assert chat.status == "failed"
    assert await texts(chat) == []
    assert await texts(chat, Entry.Kind.NOTICE) == [
        "The turn failed: the demo agent was told to fail"
    ]
    turn = await sync_to_async(chat.turns.get)()
    assert turn.state == Turn.State.FAILED


async def test_it_leaves_background_work_waiting_then_goes_idle(chat, settings):
    settings.DEMO_STEP_SECONDS = 0.05
    await prompt(chat, "background 2")
    turn = await claim()
    runner = TurnRunner("tests")

    await runner.run_turn(turn)

    assert (await fresh(chat)).status == "waiting"
    assert len(runner.background) == 1
    await asyncio.wait_for(asyncio.gather(*runner.background), 5)
    chat = await fresh(chat)
    assert chat.status == "idle"
    assert await texts(chat) == ["Left 2 steps of background work running."]


async def test_it_says_anything_else_back_line_by_line(chat, fast_steps):
    await prompt(chat, "hello there\n\nwork 1\n  how are you?  ")
    await run_all()

    chat = await fresh(chat)
    assert chat.status == "idle"
    assert await texts(chat) == ["hello there\nWorked 1 step.\nhow are you?"]


async def test_it_ends_a_stopped_turn_quietly_between_steps(chat, settings):
    settings.DEMO_STEP_SECONDS = 0.1  # 100 steps at most: 10 s, far longer than the test
    await prompt(chat, "work 100")
    turn = await claim()
    running = asyncio.create_task(TurnRunner("tests").run_turn(turn))
    await wait_until(
        lambda: Turn.objects.filter(pk=turn.pk).exclude(input="").exists(), "the turn to start"
    )

    await sync_to_async(peer_actions.check_stop_chat)(chat)
    await asyncio.wait_for(running, 5)

    chat = await fresh(chat)
    assert chat.status == "stopped"
    assert (await fresh_turn(turn)).state == Turn.State.CANCELLED
    assert await texts(chat) == []
    assert await texts(chat, Entry.Kind.NOTICE) == ["Stopped by you."]


async def test_it_fails_a_chat_whose_cli_is_missing(owner, fast_steps, monkeypatch, tmp_path):
    builder = await sync_to_async(make_chat)(owner, "builder", agent="claude-code")
    monkeypatch.delenv("CLAUDE_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    await prompt(builder, "build it")
    await run_all()

    builder = await fresh(builder)
    assert builder.status == "failed"
    assert await texts(builder, Entry.Kind.NOTICE) == [
        "The turn failed: `claude` was not found on PATH (set CLAUDE_BIN to its path)"
    ]
    assert chat_json(builder)["failure"] == (
        "`claude` was not found on PATH (set CLAUDE_BIN to its path)"
    )


async def test_it_caps_work_and_background_at_100_steps(chat, fast_steps):
    await prompt(chat, "work 1000\nbackground 99999999999999999999")
    runner = await run_all()
    await asyncio.wait_for(asyncio.gather(*runner.background), 5)

    assert await texts(chat) == ["Worked 100 steps.\nLeft 100 steps of background work running."]
