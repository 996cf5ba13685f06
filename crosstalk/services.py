"""The long-lived tasks each server process starts once, beside serving:

- the turn runner, on the embedded default (`TURNS_IN_PROCESS`; `serve
  --no-runner` leaves turns to `run_turns` workers), which sends the answers
  back to origins beside its turns (agents.runner);
- the loop that carries pushes out of request threads (kernel.events);
- the MCP session manager behind /mcp (crosstalk.mcp.http).

Daphne sends no lifespan events, so `serve` starts them as soon as it listens,
and any other server with the first connection; servers that speak lifespan
(uvicorn) also stop them cleanly."""

import asyncio
import logging
from collections.abc import Awaitable, Callable

from django.conf import settings

from agents.dbthread import in_db_thread
from agents.recovery import recover_interrupted_turns
from agents.runner import TurnRunner, default_worker_id
from crosstalk.mcp.http import run_mcp_session_manager
from kernel import events

logger = logging.getLogger(__name__)

type Service = Callable[[], Awaitable[None]]
# A service that crashes is started again after this long.
RESTART_SECONDS = 5


async def run_in_process_runner() -> None:
    # This process is the only runner (the embedded default): turns left
    # running by its previous life can never finish.
    recovered = await in_db_thread(recover_interrupted_turns)()
    if recovered:
        logger.info("Failed %s turns interrupted by a restart.", recovered)
    await TurnRunner(default_worker_id("web")).run_forever()


def process_services(*, runner: bool) -> dict[str, Service]:
    """What one server process runs beside serving, by name."""
    services: dict[str, Service] = {"mcp session manager": run_mcp_session_manager}
    if runner:
        services["turn runner"] = run_in_process_runner
    return services


async def keep_running(service: Service, name: str) -> None:
    while True:
        try:
            await service()
            return
        except Exception:
            logger.exception("The %s crashed; starting it again in %s s.", name, RESTART_SECONDS)
            await asyncio.sleep(RESTART_SECONDS)


def current_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        # Daphne's ready callback runs after it set its loop, before the loop runs.
        return asyncio.get_event_loop()


class ServerProcess:
    """The ASGI application of one server process: starts its services once,
    then hands every scope on. Answers the lifespan protocol for servers that speak it."""

    def __init__(self, app, *, services=process_services) -> None:
        self.app = app
        self.services = services
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: set[asyncio.Task] = set()

    def start(self, *, runner: bool | None = None) -> bool:
        """Start the services on the current loop; False when they already run.

        Callable before the loop runs (Daphne's ready callback): tasks start with it."""
        loop = current_loop()
        if self.loop is not None and not self.loop.is_closed():
            return False
        self.loop = loop
        events.use_server_loop(loop)
        wanted = settings.TURNS_IN_PROCESS if runner is None else runner
        for name, service in self.services(runner=wanted).items():
            task = loop.create_task(keep_running(service, name), name=name)
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return True

    async def stop(self) -> None:
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.tasks.clear()
        self.loop = None

    async def __call__(self, scope, receive, send) -> None:
        self.start()
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
                await self.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return
