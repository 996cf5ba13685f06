"""REST for the person's inbox (docs/api.md): GET /api/v1/inbox, POST /api/v1/inbox/done."""

from ninja import Router

from chats.api import PersonToken
from chats.outputs import Page, problems
from crosstalk.inbox import actions
from crosstalk.inbox.inputs import InboxItemOut, InboxOffset, InboxQuery, MarkDone, MarkedDone
from crosstalk.inbox.selectors import inbox_count, inbox_items
from kernel.inputs import Limit

router = Router(auth=PersonToken(), tags=["inbox"])


def inbox_page(user, spec: InboxQuery) -> dict:
    """A page of the inbox, newest first, and how many items it holds (REST and MCP)."""
    limit = min(spec.limit, 100)
    items = inbox_items(user, limit=limit, offset=spec.offset, done=spec.done)
    return {"items": [item.as_json() for item in items], "count": inbox_count(user, done=spec.done)}


def mark_done(user, spec: MarkDone) -> dict:
    if spec.all:
        return {"items": actions.check_mark_all_done(user)}
    return {"items": actions.check_mark_done(user, items=spec.items)}


@router.get("/inbox", response={200: Page[InboxItemOut], **problems(400, 401)})
def read_inbox(request, limit: Limit = 50, offset: InboxOffset = 0, done: bool = False):
    """What waits for you across chats, newest first; with `done=1` the done ones too."""
    return inbox_page(request.auth.user, InboxQuery(limit=limit, offset=offset, done=done))


@router.post("/inbox/done", response={200: MarkedDone, **problems(400, 401, 404, 413)})
def mark_inbox_done(request, spec: MarkDone):
    """Mark these items done (`items`), or every waiting one (`all: true`)."""
    return mark_done(request.auth.user, spec)
