import asyncio
import signal

from django.core.management.base import BaseCommand, CommandParser

from agents.runner import TurnRunner, default_worker_id


class Command(BaseCommand):
    help = "A turn worker (no web): claims requested turns and runs them until SIGINT/SIGTERM."

    def add_arguments(self, parser: CommandParser) -> None:
        # Turns a killed worker left running fail when their lease runs out
        # (agents.leases): no start-up recovery that would fail live workers' turns.
        parser.add_argument("--worker-id", help="A name for this worker (default: host:pid).")

    def handle(self, *args, worker_id: str | None, **options) -> None:
        runner = TurnRunner(worker_id or default_worker_id())
        asyncio.run(self.work(runner))
        self.stdout.write(f"Turn worker {runner.worker_id} stopped.")

    async def work(self, runner: TurnRunner) -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        self.stdout.write(f"Turn worker {runner.worker_id} is waiting for turns.")
        self.stdout.flush()
        serving = asyncio.create_task(runner.run_forever())
        signalled = asyncio.create_task(stopping.wait())
        await asyncio.wait([serving, signalled], return_when=asyncio.FIRST_COMPLETED)
        signalled.cancel()
        if serving.done():
            serving.result()  # run_forever only ends by crashing: show why
            return
        # The runner fails the turns it still runs on its way out: nobody else will end them.
        runner.stop()
        await serving
