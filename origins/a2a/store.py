"""Tasks kept in the database, per origin, so any web process can answer tasks/get and a
restart loses nothing (the SDK's in-memory store would do neither). A failure here is
logged and answered as the SDK's generic InternalError: the client never reads the
database's own words."""

import functools
import logging

from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types import a2a_pb2
from a2a.types.a2a_pb2 import Task
from a2a.utils.errors import A2AError, InternalError, InvalidParamsError
from asgiref.sync import sync_to_async
from google.protobuf.json_format import MessageToJson, Parse

from origins.actions import do_delete_a2a_task, do_save_a2a_task
from origins.selectors import a2a_tasks, get_a2a_task

DEFAULT_PAGE = 50
MAX_PAGE = 100
MAX_PAGE_TOKEN_DIGITS = 9
logger = logging.getLogger(__name__)


def internals_hidden(method):
    @functools.wraps(method)
    async def guarded(*args, **kwargs):
        try:
            return await method(*args, **kwargs)
        except A2AError:
            raise
        except Exception:
            logger.exception("The A2A task store failed")
            raise InternalError() from None

    return guarded


def origin_of(context: ServerCallContext):
    return context.state["origin"]


def as_task(row) -> Task:
    return Parse(row.data, Task())


class DatabaseTaskStore(TaskStore):
    @internals_hidden
    async def save(self, task: Task, context: ServerCallContext) -> None:
        await sync_to_async(self._save)(task, origin_of(context))

    @internals_hidden
    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        row = await sync_to_async(get_a2a_task)(origin_of(context), task_id)
        return as_task(row) if row else None

    @internals_hidden
    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        await sync_to_async(do_delete_a2a_task)(origin_of(context), task_id)

    @internals_hidden
    async def list(
        self, params: a2a_pb2.ListTasksRequest, context: ServerCallContext
    ) -> a2a_pb2.ListTasksResponse:
        return await sync_to_async(self._list)(params, origin_of(context))

    @staticmethod
    def _save(task: Task, origin) -> None:
        do_save_a2a_task(
            origin,
            task_id=task.id,
            context_id=task.context_id,
            state=task.status.state,
            data=MessageToJson(task),
        )

    @staticmethod
    def _list(params: a2a_pb2.ListTasksRequest, origin) -> a2a_pb2.ListTasksResponse:
        rows = a2a_tasks(origin, context_id=params.context_id, state=params.status)
        size = min(params.page_size or DEFAULT_PAGE, MAX_PAGE)
        start = page_start(params.page_token)
        total = rows.count()
        page = list(rows[start : start + size])
        more = start + size < total
        return a2a_pb2.ListTasksResponse(
            tasks=[as_task(row) for row in page],
            next_page_token=str(start + size) if more else "",
            page_size=size,
            total_size=total,
        )


def page_start(token: str) -> int:
    """The offset a page token names: one this store gave (a small number), or the start."""
    if not token:
        return 0
    if not (token.isascii() and token.isdigit()) or len(token) > MAX_PAGE_TOKEN_DIGITS:
        raise InvalidParamsError("pageToken is not one this server gave.")
    return int(token)
