"""A server process starts its background services once: the in-process runner
(after failing turns a restart interrupted) and whatever else crosstalk.services lists."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from chats.models import Entry, Turn
from crosstalk.services import ServerProcess, process_services
from tests.agents.conftest import claim, fresh, prompt, texts, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


async def app(scope, receive, send):
    pass


@pytest.fixture
async def server(settings):
    settings.TURNS_IN_PROCESS = True
    settings.DEMO_STEP_SECONDS = 0
    process = ServerProcess(app)
    yield process
    await process.stop()


async def test_it_starts_the_runner_once_and_it_runs_turns(chat, server):
    assert server.start() is True
    assert server.start() is False

    await prompt(chat, "hello")

    await wait_until(lambda: chat.entries.filter(kind="answer").exists(), "the answer")
    assert await texts(chat) == ["hello"]


async def test_it_fails_turns_a_restart_interrupted(chat, server):
    await prompt(chat, "work 3")
    turn = await claim("the previous process")

    server.start()

    await wait_until(
        lambda: Turn.objects.filter(pk=turn.pk, state="failed").exists(), "the recovery"
    )
    assert (await fresh(chat)).status == "failed"
    assert await texts(chat, Entry.Kind.NOTICE) == [
        "The turn failed: Crosstalk restarted while this turn ran."
    ]


async def test_it_runs_no_turns_when_turns_run_elsewhere(chat, server, settings):
    settings.TURNS_IN_PROCESS = False
    server.start()
    await prompt(chat, "hello")
    await asyncio.sleep(0)
    assert "turn runner" not in {task.get_name() for task in server.tasks}
    assert await sync_to_async(chat.turns.filter(state="requested").count)() == 1


async def test_it_starts_every_listed_service(server, settings):
    settings.TURNS_IN_PROCESS = False
    started = asyncio.Event()

    async def mcp_session_manager() -> None:
        started.set()
        await asyncio.Event().wait()

    process = ServerProcess(
        app, services=lambda runner: {**process_services(runner=runner), "mcp": mcp_session_manager}
    )
    try:
        process.start()
        await asyncio.wait_for(started.wait(), 5)
    finally:
        await process.stop()


async def test_it_speaks_lifespan_and_passes_other_scopes_on(server, settings):
    settings.TURNS_IN_PROCESS = False
    seen = []

    async def inner(scope, receive, send):
        seen.append(scope["type"])

    inbox = asyncio.Queue()
    outbox = []
    for message in ("lifespan.startup", "lifespan.shutdown"):
        inbox.put_nowait({"type": message})

    async def send(message):
        outbox.append(message["type"])

    wrapped = ServerProcess(inner)
    await wrapped({"type": "lifespan"}, inbox.get, send)
    await wrapped({"type": "http"}, inbox.get, send)

    assert outbox == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert seen == ["http"]
