"""The A2A task is a Crosstalk turn: submitted when the message is received, working while
the chat's turn runs, completed with the turn's final text as the artifact (or failed)."""

import asyncio
import time

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, Task, TaskState, TaskStatus
from asgiref.sync import sync_to_async
from django.conf import settings

from chats.models import Turn
from chats.refusals import Refusal
from origins.actions import Inbound, receive_from_origin

POLL_SECONDS = 0.2  # the database is the truth; a turn takes seconds, so a short poll is cheap
ENDED = {Turn.State.DONE, Turn.State.FAILED, Turn.State.CANCELLED}


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


def turn_outcome(turn_id: int) -> tuple[str, str] | None:
    """(state, text) once the turn has ended, else None."""
    turn = Turn.objects.filter(pk=turn_id).values("state", "final_text", "error").first()
    if turn is None or turn["state"] not in ENDED:
        return None
    return turn["state"], turn["final_text"] or turn["error"]


async def wait_for_turn(turn_id: int) -> tuple[str, str] | None:
    deadline = time.monotonic() + settings.A2A_WAIT_SECONDS
    while time.monotonic() < deadline:
        if outcome := await sync_to_async(turn_outcome)(turn_id):
            return outcome
        await asyncio.sleep(POLL_SECONDS)
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
        await updater.start_work()
        await self.finish(updater, await wait_for_turn(turn_id))

    async def finish(self, updater: TaskUpdater, outcome: tuple[str, str] | None) -> None:
        if outcome is None:
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
