"""read_inbox and mark_done, the twins of GET /api/v1/inbox and POST /api/v1/inbox/done
(crosstalk.inbox.api): the same input models, the same bodies."""

from chats.api import Caller
from crosstalk.inbox.api import inbox_page, mark_done
from crosstalk.inbox.inputs import InboxQuery, MarkDone
from peers.mcp.registry import Answer, Tool


def item_line(item: dict) -> str:
    about = f" (message {item['message']})" if item["message"] else ""
    return (
        f"- {item['id']} · {item['kind']} · chat {item['chat']}{about} · "
        f"{item['created_at']}: {item['text'][:200]}"
    )


def read_inbox(caller: Caller, spec: InboxQuery) -> Answer:
    body = inbox_page(caller.user, spec)
    if not body["items"]:
        return Answer("Nothing waits for you.", body)
    head = f"{body['count']} items wait for you; newest first:"
    return Answer("\n".join([head, *map(item_line, body["items"])]), body)


def mark_items_done(caller: Caller, spec: MarkDone) -> Answer:
    body = mark_done(caller.user, spec)
    return Answer(f"Marked {len(body['items'])} items done.", body)


TOOLS = [
    Tool(
        "read_inbox",
        "What waits for you across your chats, newest first: held messages, messages to you, "
        "answers to your messages, failed turns, outside answers that failed. Each item: "
        "`id`, `kind`, `chat`, `message`, `text`, `created_at`, `done`. `limit`, `offset`; "
        "`done: true` lists the items marked done too.",
        InboxQuery,
        read_inbox,
    ),
    Tool(
        "mark_done",
        "Mark inbox items done (`items`: their ids), or every waiting one (`all: true`); "
        "done items leave the default list.",
        MarkDone,
        mark_items_done,
    ),
]
