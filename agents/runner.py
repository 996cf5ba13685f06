"""The turn runner: claims requested turns and runs each in its own asyncio task.

Several turns run at once (a demo `ask` waits inside its turn for another chat's
turn to answer). Claiming is row-locked in chats.actions, so any number of
runners, in one process or many, each get a turn exactly once."""

import asyncio
import contextlib
import logging
import os
import socket
from collections import Counter

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connections

from agents import peer_calls, turns
from agents.adapters import Adapter, TurnContext, TurnResult, TurnStopped, adapter_for
from agents.dbthread import in_db_thread
from agents.errors import AgentFailed, AgentUnavailable
from agents.leases import alongside
from chats.actions import claim_next_turn, do_set_turn_input
from chats.models import Turn
from chats.runners import check_turn_may_run
from kernel.events import RUNNER_GROUP
from kernel.refusals import Refusal
from origins.actions import run_reply_loop

logger = logging.getLogger(__name__)

# The wake-up push is only a hint (it may be lost): look for requested turns this often anyway.
BACKSTOP_SECONDS = 2.0
# Channel layers expire group memberships (after a day by default): join again well before.
REJOIN_SECONDS = 600
WORKER_STOPPED = "the turn worker stopped while this turn ran"


def default_worker_id(role: str = "worker") -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{role}"


def one_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    line = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return line[:300]


def compose_input(prompt: str, *blocks: str) -> str:
    """What the agent gets: the person's prompt, then the notices and framed peer messages."""
    return "\n\n".join(part for part in (prompt.strip(), *blocks) if part)


def tidy_connections() -> None:
    """Drop an expired or broken connection between calls, as the end of a request would.

    Never inside a transaction: tests run everything inside one."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()


class TurnRunner:
    def __init__(
        self,
        worker_id: str | None = None,
        *,
        backstop_seconds: float = BACKSTOP_SECONDS,
        concurrency: int | None = None,
    ) -> None:
        self.worker_id = worker_id or default_worker_id()
        self.backstop_seconds = backstop_seconds
        self.concurrency = concurrency
        self.turns: dict[asyncio.Task, Turn] = {}
        self.background: set[asyncio.Task] = set()
        self.wakeup = asyncio.Event()
        # Set once the runner listens for wake-up pushes (tests wait for it).
        self.listening = asyncio.Event()
        self.stopping = False

    # Serving -----------------------------------------------------------------

    async def run_forever(self) -> None:
        # Answers to origins go out from every process that runs turns, started here
        # and nowhere else (docs/origins.md); claims under skip_locked let many share.
        replies = asyncio.create_task(run_reply_loop(), name="origin replies")
        try:
            await self.serve(until_idle=False)
        finally:
            replies.cancel()
            await asyncio.gather(replies, return_exceptions=True)

    async def run_until_idle(self, timeout: float = 30) -> None:
        """Run every requested turn, and the turns they lead to, until none is left.

        Past the timeout it stops its turns (they fail) and raises TimeoutError."""
        async with asyncio.timeout(timeout):
            await self.serve(until_idle=True)

    async def serve(self, *, until_idle: bool) -> None:
        listener = asyncio.create_task(alongside(self, self.listen_for_wakes()), name="wakes")
        try:
            while not self.stopping:
                self.wakeup.clear()
                await in_db_thread(tidy_connections)()
                await self.claim_available()
                if until_idle and not self.turns and not self.background:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wakeup.wait(), self.backstop_seconds)
        finally:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
            await self.stop_all()

    def stop(self) -> None:
        """Leave the loop at its next turn; serve() then stops what still runs.

        A flag as well as cancelling: a cancel that lands during a DB call is
        absorbed by sync_to_async, which waits for the thread and returns."""
        self.stopping = True
        self.wakeup.set()

    def max_turns(self) -> int:
        return self.concurrency or settings.TURNS_CONCURRENCY

    def accounts_at_their_share(self) -> set[int]:
        """Accounts running TURNS_PER_ACCOUNT turns here: their next turns wait their
        turn, so one account's many chats never hold up another's."""
        running = Counter(turn.chat.user_id for turn in self.turns.values())
        return {user for user, count in running.items() if count >= settings.TURNS_PER_ACCOUNT}

    async def claim_available(self) -> None:
        while not self.stopping and len(self.turns) < self.max_turns():
            try:
                turn = await in_db_thread(claim_next_turn)(
                    self.worker_id, skip_accounts=self.accounts_at_their_share()
                )
            except Exception:
                logger.exception("Could not claim a turn; trying again shortly.")
                return
            if turn is None:
                return
            task = asyncio.create_task(self.run_turn(turn), name=f"turn-{turn.pk}")
            self.turns[task] = turn
            task.add_done_callback(self.turn_done)

    def turn_done(self, task: asyncio.Task) -> None:
        self.turns.pop(task, None)
        # A slot is free, and a turn queued behind this one may start now.
        self.wakeup.set()
        log_crash(task)

    async def listen_for_wakes(self) -> None:
        layer = get_channel_layer()
        if layer is None:
            self.listening.set()
            return
        channel = await layer.new_channel()
        try:
            while True:
                try:
                    await self.receive_wakes(layer, channel)
                except Exception:
                    logger.warning("The wake-up channel failed; polling meanwhile.", exc_info=True)
                    await asyncio.sleep(self.backstop_seconds)
        finally:
            with contextlib.suppress(Exception):
                await layer.group_discard(RUNNER_GROUP, channel)

    async def receive_wakes(self, layer, channel: str) -> None:
        await layer.group_add(RUNNER_GROUP, channel)
        self.listening.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(REJOIN_SECONDS):
                while True:
                    await layer.receive(channel)
                    self.wakeup.set()

    async def stop_all(self) -> None:
        """Cancel what still runs; its turns fail, since nothing else will end them."""
        interrupted = list(self.turns.values())
        tasks = [*self.turns, *self.background]
        for _ in range(3):  # again for a task whose cancel a DB call absorbed
            pending = [task for task in tasks if not task.done()]
            if not pending:
                break
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=3)
        for turn in interrupted:
            await in_db_thread(turns.fail)(turn, error=WORKER_STOPPED)

    # One turn ------------------------------------------------------------------

    async def run_turn(self, turn: Turn) -> None:
        """Run a turn claimed by this runner (claim_next_turn) to its end."""
        try:
            adapter = adapter_for(turn.chat)
            ctx = await self.prepare(turn)
            result = await self.drive(adapter, ctx)
        except TurnStopped:
            # The person stopped the chat: it already reads `stopped`; what the turn
            # took after the stop (a claim just before it) goes back too.
            await in_db_thread(turns.stopped)(turn)
            return
        except AgentUnavailable as error:
            await in_db_thread(turns.fail)(turn, error=str(error), never_started=True)
            return
        except AgentFailed as error:
            await in_db_thread(turns.fail)(turn, error=str(error))
            return
        except Exception as error:
            logger.exception("Turn %s of chat %s failed.", turn.pk, turn.chat_id)
            await in_db_thread(turns.fail)(turn, error=one_line(error))
            return
        await self.finish(adapter, ctx, result)

    async def prepare(self, turn: Turn) -> TurnContext:
        try:
            folder = await in_db_thread(check_turn_may_run)(turn)
        except Refusal as refusal:  # before anything is taken: its messages stay held
            raise AgentFailed(refusal.message) from None
        messages = await peer_calls.take_for_turn(turn)
        notices = await peer_calls.notices_for_turn(turn)
        text = compose_input(turn.prompt, notices, await peer_calls.frame_all(messages))
        await in_db_thread(do_set_turn_input)(turn, text=text)
        return TurnContext(turn, turn.chat, turn.prompt, messages, text, folder=folder)

    async def drive(self, adapter: Adapter, ctx: TurnContext) -> TurnResult:
        result = await adapter.run(ctx)
        # Like Claude Code's Stop hook: messages that came meanwhile keep it going.
        while adapter.takes_messages_as_finished:
            await ctx.check_running()
            late = await peer_calls.deliver_as_finished(ctx.chat)
            if not late:
                break
            result = await adapter.take_as_finished(ctx, late)
        return result

    async def finish(self, adapter: Adapter, ctx: TurnContext, result: TurnResult) -> None:
        background = result.background_steps > 0
        ended = await in_db_thread(turns.finish)(
            ctx.turn, final_text=result.final_text, background=background
        )
        # Not ended: stopped just before the end, so stop holds and nothing goes on.
        if ended and background:
            self.start_background(adapter, ctx, result.background_steps)

    def start_background(self, adapter: Adapter, ctx: TurnContext, count: int) -> None:
        task = asyncio.create_task(self.run_background(adapter, ctx, count))
        self.background.add(task)
        task.add_done_callback(self.background_done)

    async def run_background(self, adapter: Adapter, ctx: TurnContext, count: int) -> None:
        await adapter.background_work(ctx, count)
        # Messages that came meanwhile waited with the work; now they open a turn.
        await in_db_thread(turns.end_background)(ctx.chat)

    def background_done(self, task: asyncio.Task) -> None:
        self.background.discard(task)
        self.wakeup.set()
        log_crash(task)


def log_crash(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("%s crashed.", task.get_name(), exc_info=task.exception())
