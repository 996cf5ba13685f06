"""Fair turns: one account's many long turns never hold up another account's."""

import asyncio
import sys
import textwrap

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.models import Turn
from tests.agents.conftest import prompt, texts, wait_until
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)

# Runs until the test lets it go (a file appears in its folder), then answers.
WAITS_FOR_GO = """
    import pathlib, sys, time
    sys.stdin.read()
    while not pathlib.Path("go").exists():
        time.sleep(0.02)
    print("went")
"""


def long_chats(owner, folder, count: int) -> list:
    (folder / "agent.py").write_text(textwrap.dedent(WAITS_FOR_GO))
    command = f"{sys.executable} agent.py"
    return [
        make_chat(owner, f"long-{n}", agent="command", command=command, folder=str(folder))
        for n in range(count)
    ]


def states(user) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for turn in Turn.objects.filter(chat__user=user).order_by("requested_at", "id"):
        found.setdefault(turn.state, []).append(turn.chat.name)
    return found


async def test_it_sixteen_long_turns_of_one_account_never_delay_another_accounts(
    owner, outsider, workdir, settings
):
    settings.TURNS_PER_ACCOUNT = 4
    settings.TURNS_CONCURRENCY = 16
    chats = await sync_to_async(long_chats)(owner, workdir, 16)
    quick = await sync_to_async(make_chat)(outsider, "quick", agent="command", command="cat")
    for chat in chats:
        await prompt(chat, "work long")
    runner = TurnRunner("fair", backstop_seconds=0.05)
    serving = asyncio.create_task(runner.run_forever())
    try:
        await wait_until(
            lambda: len(states(owner).get("running", [])) == 4, "4 long turns", timeout=30
        )
        await prompt(quick, "hello from another account")
        # It starts and ends while all of the first account's turns still run or wait.
        await wait_until(
            lambda: states(outsider) == {"done": ["quick"]}, "the other turn", timeout=30
        )
        first = await sync_to_async(states)(owner)
        # The first account's oldest four run; the twelve others wait in order.
        assert first == {
            "running": [f"long-{n}" for n in range(4)],
            "requested": [f"long-{n}" for n in range(4, 16)],
        }
        assert await texts(quick) == ["hello from another account"]
        (workdir / "go").touch()
        everything = {"done": [chat.name for chat in chats]}
        await wait_until(lambda: states(owner) == everything, "all 16", timeout=90)
    finally:
        runner.stop()
        await serving
