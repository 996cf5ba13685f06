"""Long-lived tasks that live inside the web process: the in-process turn runner,
and whatever other apps add to EXTRA_SERVICES (the MCP session manager, say).

Daphne sends no lifespan events, so they start with the first connection of any
kind, once per process; `manage.py serve` starts them as soon as it listens."""

import asyncio
import logging
from collections.abc import Awaitable, Callable

from django.conf import settings

from agents.dbthread import in_db_thread
from agents.runner import TurnRunner, default_worker_id
from chats import events
from chats.actions import do_recover_interrupted_turns

logger = logging.getLogger(__name__)

# Coroutine factories started once per process next to the runner; each runs until cancelled.
EXTRA_SERVICES: list[Callable[[], Awaitable[None]]] = []
# A service that crashes is started again after this long.
RESTART_SECONDS = 5

_loop: asyncio.AbstractEventLoop | None = None
_tasks: set[asyncio.Task] = set()


def start_background_services() -> bool:
    """Start the services on the current event loop; False when they already run.

    Callable before the loop runs (Daphne's ready callback): tasks start with it."""
    global _loop
    loop = current_loop()
    if _loop is not None and not _loop.is_closed():
        return False
    _loop = loop
    # Pushes from request threads leave through this loop without waiting on them.
    events.use_server_loop(loop)
    _tasks.clear()
    if settings.TURNS_IN_PROCESS:
        spawn(loop, run_in_process_runner, "turn runner")
    for factory in EXTRA_SERVICES:
        spawn(loop, factory, getattr(factory, "__name__", "service"))
    return True


async def stop_background_services() -> None:
    global _loop
    tasks = list(_tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    _tasks.clear()
    _loop = None


def current_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        # Daphne's ready callback runs after it set its loop, before the loop runs.
        return asyncio.get_event_loop()


def spawn(loop: asyncio.AbstractEventLoop, factory: Callable[[], Awaitable[None]], name: str):
    task = loop.create_task(keep_running(factory, name), name=name)
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def keep_running(factory: Callable[[], Awaitable[None]], name: str) -> None:
    while True:
        try:
            await factory()
            return
        except Exception:
            logger.exception("The %s crashed; starting it again in %s s.", name, RESTART_SECONDS)
            await asyncio.sleep(RESTART_SECONDS)


async def run_in_process_runner() -> None:
    # This process is the only runner (the embedded default): turns left
    # running by its previous life can never finish.
    recovered = await in_db_thread(do_recover_interrupted_turns)()
    if recovered:
        logger.info("Failed %s turns interrupted by a restart.", recovered)
    await TurnRunner(default_worker_id("web")).run_forever()


class BackgroundServices:
    """ASGI wrapper: starts the background services, then hands every scope on.

    Answers the lifespan protocol itself for servers that speak it (uvicorn)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        start_background_services()
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        await self.app(scope, receive, send)

    async def lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await stop_background_services()
                await send({"type": "lifespan.shutdown.complete"})
                return
