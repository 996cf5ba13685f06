"""Helpers to drive the turn runner from async tests.

The runner's DB calls run in asgiref's one thread-sensitive thread, which has
its own connection: tests that run turns use a transactional database."""

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats import actions
from chats.models import Chat, Entry, Turn


@pytest.fixture
def fast_steps(settings):
    settings.DEMO_STEP_SECONDS = 0
    return settings


@sync_to_async
def prompt(chat: Chat, text: str, **kwargs) -> Turn:
    return actions.check_prompt(chat, text=text, **kwargs)


@sync_to_async
def claim(worker: str = "tests") -> Turn | None:
    return actions.claim_next_turn(worker)


@sync_to_async
def fresh(chat: Chat) -> Chat:
    return Chat.objects.get(pk=chat.pk)


@sync_to_async
def fresh_turn(turn: Turn) -> Turn:
    return Turn.objects.get(pk=turn.pk)


@sync_to_async
def texts(chat: Chat, kind: str = Entry.Kind.ANSWER) -> list[str]:
    return list(chat.entries.filter(kind=kind).values_list("text", flat=True))


async def run_all(timeout: float = 20) -> TurnRunner:
    """Run every requested turn, and those they lead to, until none is left."""
    runner = TurnRunner("tests")
    await runner.run_until_idle(timeout)
    return runner


async def wait_until(check: Callable[[], bool], what: str, timeout: float = 10) -> None:
    """Poll the database (in the DB thread) until check() holds; fail loudly past the timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await sync_to_async(check)():
        if loop.time() > deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


async def group_gone(pgid: int, timeout: float = 5) -> bool:
    """Whether no process of the group is left (killed members take a moment to be reaped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.02)
    return False


def marked(marker: str) -> list[int]:
    """Processes with this marker (a test's unique word) as one of their arguments."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue  # ended meanwhile
    return found


async def none_marked(marker: str, timeout: float = 10) -> bool:
    """Whether every process carrying the marker is gone within the timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while marked(marker):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
