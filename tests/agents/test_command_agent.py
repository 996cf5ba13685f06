"""A `command` chat: its input on stdin, its stdout the answer; failures, Stop and
timeouts end it clearly, and messages wait for the person or the next turn."""

import asyncio
import re
import sys
import textwrap

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.actions import do_stop_chat
from chats.models import Entry, Turn
from peers import actions
from peers.models import PeerMessage
from tests.agents.conftest import fresh, group_gone, prompt, run_all, texts, wait_until
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)


def command_chat(owner, folder, body: str, name: str = "scripted", **fields):
    (folder / "agent.py").write_text(textwrap.dedent(body))
    command = f"{sys.executable} agent.py"
    return make_chat(owner, name, agent="command", command=command, folder=str(folder), **fields)


ECHO = """
    import sys
    text = sys.stdin.read()
    print("You said:")
    print(text.strip().upper())
"""

# Says it started, then waits for the test to let it go (a file appears), then answers.
WAITS_FOR_GO = """
    import os, pathlib, sys, time
    text = sys.stdin.read()
    print(f"started {os.getpgid(0)}", flush=True)
    while not pathlib.Path("go").exists():
        time.sleep(0.02)
    print("done with " + text.strip().splitlines()[-1])
"""


@sync_to_async
def latest_turn(chat) -> Turn:
    return chat.turns.order_by("-requested_at", "-id").first()


@sync_to_async
def send(sender, recipient, text: str) -> PeerMessage:
    return actions.check_send_message(sender, to=recipient.pk, text=text)


@sync_to_async
def fresh_message(message) -> PeerMessage:
    return PeerMessage.objects.get(pk=message.pk)


async def test_it_answers_with_its_stdout(owner, workdir):
    chat = await sync_to_async(command_chat)(owner, workdir, ECHO)
    await prompt(chat, "which port?")

    await run_all()

    assert await texts(chat) == ["You said:\nWHICH PORT?"]
    chat = await fresh(chat)
    assert chat.status == "idle" and chat.last_answered == "You said:\nWHICH PORT?"
    turn = await latest_turn(chat)
    assert turn.state == "done" and turn.exit_code == 0 and turn.duration_seconds > 0
    assert turn.cost_usd is None


async def test_it_fails_with_the_tail_of_stderr_and_runs_the_next_prompt(owner, workdir):
    body = """
        import pathlib, sys
        if not pathlib.Path("fixed").exists():
            print("Traceback: something broke", file=sys.stderr)
            sys.exit(2)
        print("fine now")
    """
    chat = await sync_to_async(command_chat)(owner, workdir, body)
    await prompt(chat, "go")
    await run_all()

    chat = await fresh(chat)
    assert chat.status == "failed"
    assert await texts(chat, Entry.Kind.NOTICE) == [
        f"The turn failed: `{sys.executable}` exited with status 2: Traceback: something broke"
    ]
    assert (await latest_turn(chat)).exit_code == 2

    (workdir / "fixed").touch()
    await prompt(chat, "again")
    await run_all()
    assert (await fresh(chat)).status == "idle"
    assert await texts(chat) == ["fine now"]


async def test_it_fails_a_turn_that_runs_past_the_time_limit(owner, workdir, settings):
    settings.TURN_TIMEOUT_SECONDS = 1
    chat = await sync_to_async(command_chat)(owner, workdir, WAITS_FOR_GO)
    await prompt(chat, "never ends")

    await run_all()

    chat = await fresh(chat)
    assert chat.status == "failed"
    assert await texts(chat, Entry.Kind.NOTICE) == [
        f"The turn failed: `{sys.executable}` ran past 1 s and was stopped"
    ]
    # What it said before it was stopped stays in the conversation.
    (started,) = await texts(chat)
    assert await group_gone(int(started.split()[1]))


async def test_it_kills_the_group_when_the_person_stops_it(owner, workdir):
    chat = await sync_to_async(command_chat)(owner, workdir, WAITS_FOR_GO)
    await prompt(chat, "long job")
    runner = TurnRunner("tests")
    serving = asyncio.create_task(runner.run_until_idle(30))

    await wait_until(lambda: chat.entries.filter(kind="answer").exists(), "the command to start")
    await sync_to_async(do_stop_chat)(chat)
    await serving

    (started,) = await texts(chat)
    assert await group_gone(int(started.split()[1]))
    assert (await fresh(chat)).status == "stopped"
    assert (await latest_turn(chat)).state == "cancelled"


async def test_it_a_message_sent_while_it_runs_queues_behind_it_and_opens_the_next_turn(
    owner, chat, workdir, fast_steps
):
    worker = await sync_to_async(command_chat)(owner, workdir, WAITS_FOR_GO, peers=True)
    await prompt(worker, "first job")
    runner = TurnRunner("tests")
    serving = asyncio.create_task(runner.run_until_idle(30))
    await wait_until(lambda: worker.entries.filter(kind="answer").exists(), "the first turn")

    message = await send(chat, worker, "and the port?")
    assert (message.state, message.detail) == ("queued", "behind_turn")
    (workdir / "go").touch()
    await serving

    turns = await sync_to_async(list)(worker.turns.order_by("requested_at"))
    assert [turn.trigger for turn in turns] == ["prompt", "send_on"]
    assert turns[1].input.startswith("<peer-message ") and "and the port?" in turns[1].input
    assert (await fresh_message(message)).detail == "turn_prompt"
    answers = await texts(worker)
    assert re.search(r'done with </peer-message boundary="\w+">$', answers[-1])


async def test_it_holds_messages_when_its_turn_fails(owner, chat, workdir):
    body = """
        import pathlib, sys, time
        sys.stdin.read()
        print("working", flush=True)
        while not pathlib.Path("go").exists():
            time.sleep(0.02)
        sys.exit(1)
    """
    worker = await sync_to_async(command_chat)(owner, workdir, body, peers=True)
    await prompt(worker, "job")
    serving = asyncio.create_task(TurnRunner("tests").run_until_idle(30))
    await wait_until(lambda: worker.entries.filter(kind="answer").exists(), "the turn to start")
    message = await send(chat, worker, "are you done?")
    (workdir / "go").touch()
    await serving

    assert (await fresh(worker)).status == "failed"
    message = await fresh_message(message)
    assert (message.state, message.detail) == ("queued", "held_until_you_write")


def test_it_refuses_a_command_it_cannot_find(runner_owner, owner_api):
    body = {"name": "x", "agent": "command", "command": "no-such-agent --go"}
    response = owner_api.call("POST", "/api/v1/chats", body)

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_input",
        "message": "command: `no-such-agent` was not found on PATH or in the working folder.",
    }
