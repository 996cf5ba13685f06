"""The A2A task is a Crosstalk turn: submitted when the message is received, working while
the chat's turn runs, completed with the turn's final text as the artifact (or failed)."""

import asyncio
import logging
import time

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, Task, TaskState, TaskStatus
from asgiref.sync import sync_to_async
from django.conf import settings

from chats.models import Turn
from kernel.refusals import Refusal
from origins.actions import Inbound, receive_from_origin
from origins.selectors import turn_outcome

POLL_SECONDS = 0.2  # the database is the truth; a turn takes seconds, so a short poll is cheap
# The call's state key of an asyncio.Event set when the HTTP client disconnects
# (origins.a2a.asgi): a blocking send or a stream nobody reads waits no longer.
CLIENT_GONE = "client_gone"
GONE = ("gone", "")
logger = logging.getLogger(__name__)


def inbound_for(context: RequestContext) -> Inbound:
    message = context.message
    return Inbound(
        thread_key=context.context_id or "",
        text=context.get_user_input(),
        author=context.call_context.state.get("a2a_caller", "an A2A client"),
        delivery_id=message.message_id if message else "",
        reply_to={"task_id": context.task_id, "context_id": context.context_id},
    )


def start_turn(origin, inbound: Inbound) -> int:
    """Hands the message to the origin's chat; the id of the turn it queued."""
    return receive_from_origin(origin, inbound).turn.pk


async def wait_for_turn(turn_id: int, gone: asyncio.Event) -> tuple[str, str] | None:
    """The turn's outcome; GONE as soon as the client is; None past A2A_WAIT_SECONDS."""
    deadline = time.monotonic() + settings.A2A_WAIT_SECONDS
    while time.monotonic() < deadline:
        if outcome := await sync_to_async(turn_outcome)(turn_id):
            return outcome
        try:
            await asyncio.wait_for(gone.wait(), POLL_SECONDS)
        except TimeoutError:
            continue
        return GONE
    return None


class ChatExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        origin = context.call_context.state["origin"]
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await event_queue.enqueue_event(
            Task(
                id=context.task_id,
                context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=[context.message],
            )
        )
        try:
            turn_id = await sync_to_async(start_turn)(origin, inbound_for(context))
        except Refusal as refusal:
            await updater.reject(self.said(updater, f"{refusal.code}: {refusal.message}"))
            return
        except Exception:  # its words stay in the log: they describe the server, not the call
            logger.exception("A2A message for origin %s failed", origin.public_id)
            await updater.failed(self.said(updater, "Internal error"))
            return
        await updater.start_work()
        gone = context.call_context.state.get(CLIENT_GONE) or asyncio.Event()
        await self.finish(updater, await wait_for_turn(turn_id, gone))

    async def finish(self, updater: TaskUpdater, outcome: tuple[str, str] | None) -> None:
        if outcome == GONE:
            await updater.failed(
                self.said(updater, "The client went away; the chat's answer stays in Crosstalk.")
            )
        elif outcome is None:
            wait = settings.A2A_WAIT_SECONDS
            await updater.failed(self.said(updater, f"The chat did not answer within {wait} s."))
        elif outcome[0] == Turn.State.DONE:
            await updater.add_artifact([Part(text=outcome[1])], name="answer", last_chunk=True)
            await updater.complete()
        else:
            await updater.failed(self.said(updater, outcome[1] or "The chat's turn failed."))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # A turn runs to its end in the chat (the person can stop it there); the task is
        # only marked cancelled for the client.
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    @staticmethod
    def said(updater: TaskUpdater, text: str):
        return updater.new_agent_message([Part(text=text)])
