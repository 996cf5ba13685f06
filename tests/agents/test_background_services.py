"""The web process starts its background services once: the in-process runner
(after failing turns a restart interrupted) and whatever other apps registered."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agents import services
from chats.models import Entry, Turn
from tests.agents.conftest import claim, fresh, prompt, texts, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def in_process(settings):
    settings.TURNS_IN_PROCESS = True
    settings.DEMO_STEP_SECONDS = 0
    yield
    await services.stop_background_services()


async def test_it_starts_the_runner_once_and_it_runs_turns(chat, in_process):
    assert services.start_background_services() is True
    assert services.start_background_services() is False

    await prompt(chat, "hello")

    await wait_until(lambda: chat.entries.filter(kind="answer").exists(), "the answer")
    assert await texts(chat) == ["hello"]


async def test_it_fails_turns_a_restart_interrupted(chat, in_process):
    await prompt(chat, "work 3")
    turn = await claim("the previous process")

    services.start_background_services()

    await wait_until(
        lambda: Turn.objects.filter(pk=turn.pk, state="failed").exists(), "the recovery"
    )
    assert (await fresh(chat)).status == "failed"
    assert await texts(chat, Entry.Kind.NOTICE) == [
        "The turn failed: Crosstalk restarted while this turn ran."
    ]


async def test_it_runs_no_turns_when_turns_run_elsewhere(chat, in_process, settings):
    settings.TURNS_IN_PROCESS = False
    services.start_background_services()
    await prompt(chat, "hello")
    await asyncio.sleep(0)
    assert services._tasks == set()
    assert await sync_to_async(chat.turns.filter(state="requested").count)() == 1


async def test_it_starts_the_services_other_apps_register(in_process, settings):
    settings.TURNS_IN_PROCESS = False
    started = asyncio.Event()

    async def mcp_session_manager() -> None:
        started.set()
        await asyncio.Event().wait()

    services.EXTRA_SERVICES.append(mcp_session_manager)
    try:
        services.start_background_services()
        await asyncio.wait_for(started.wait(), 5)
    finally:
        services.EXTRA_SERVICES.remove(mcp_session_manager)


async def test_it_speaks_lifespan_and_passes_other_scopes_on(in_process, settings):
    settings.TURNS_IN_PROCESS = False
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    inbox = asyncio.Queue()
    outbox = []
    for message in ("lifespan.startup", "lifespan.shutdown"):
        inbox.put_nowait({"type": message})

    async def send(message):
        outbox.append(message["type"])

    wrapped = services.BackgroundServices(app)
    await wrapped({"type": "lifespan"}, inbox.get, send)
    await wrapped({"type": "http"}, inbox.get, send)

    assert outbox == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert seen == ["http"]
