"""Tasks kept in the database, per origin, so any web process can answer tasks/get and a
restart loses nothing (the SDK's in-memory store would do neither)."""

from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types import a2a_pb2
from a2a.types.a2a_pb2 import Task
from asgiref.sync import sync_to_async
from google.protobuf.json_format import MessageToJson, Parse

from origins.models import A2ATask

DEFAULT_PAGE = 50
MAX_PAGE = 100


def origin_of(context: ServerCallContext):
    return context.state["origin"]


def as_task(row: A2ATask) -> Task:
    return Parse(row.data, Task())


class DatabaseTaskStore(TaskStore):
    async def save(self, task: Task, context: ServerCallContext) -> None:
        await sync_to_async(self._save)(task, origin_of(context))

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        row = await A2ATask.objects.filter(pk=task_id, origin=origin_of(context)).afirst()
        return as_task(row) if row else None

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        await A2ATask.objects.filter(pk=task_id, origin=origin_of(context)).adelete()

    async def list(
        self, params: a2a_pb2.ListTasksRequest, context: ServerCallContext
    ) -> a2a_pb2.ListTasksResponse:
        return await sync_to_async(self._list)(params, origin_of(context))

    @staticmethod
    def _save(task: Task, origin) -> None:
        # A task id is the client's or the SDK's; one of another origin is never overwritten.
        row, created = A2ATask.objects.get_or_create(
            pk=task.id,
            defaults={"origin": origin, "context_id": task.context_id, "data": "{}"},
        )
        if row.origin_id != origin.pk:
            return
        row.state = task.status.state
        row.data = MessageToJson(task)
        row.save(update_fields=["state", "data", "updated_at"])

    @staticmethod
    def _list(params: a2a_pb2.ListTasksRequest, origin) -> a2a_pb2.ListTasksResponse:
        rows = A2ATask.objects.filter(origin=origin).order_by("-updated_at", "-pk")
        if params.context_id:
            rows = rows.filter(context_id=params.context_id)
        if params.status:
            rows = rows.filter(state=params.status)
        size = min(params.page_size or DEFAULT_PAGE, MAX_PAGE)
        start = int(params.page_token) if params.page_token.isdigit() else 0
        total = rows.count()
        page = list(rows[start : start + size])
        more = start + size < total
        return a2a_pb2.ListTasksResponse(
            tasks=[as_task(row) for row in page],
            next_page_token=str(start + size) if more else "",
            page_size=size,
            total_size=total,
        )
