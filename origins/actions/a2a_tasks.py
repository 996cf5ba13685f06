"""The A2A tasks the SDK keeps (origins.a2a.store), as rows per origin: any web process
answers tasks/get, and a restart loses nothing. The SDK's types stay in the store: this
module takes the task as JSON, so importing origins.actions never loads the SDK."""

from origins.models import A2ATask, Origin


def do_save_a2a_task(origin: Origin, *, task_id: str, context_id: str, state: int, data: str):
    # A task id is the client's or the SDK's; one of another origin is never overwritten.
    row, _created = A2ATask.objects.get_or_create(
        pk=task_id, defaults={"origin": origin, "context_id": context_id, "data": "{}"}
    )
    if row.origin_id != origin.pk:
        return
    row.state, row.data = state, data
    row.save(update_fields=["state", "data", "updated_at"])


def do_delete_a2a_task(origin: Origin, task_id: str) -> None:
    A2ATask.objects.filter(pk=task_id, origin=origin).delete()
