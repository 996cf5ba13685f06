"""REST for peer messaging (docs/api.md): the agent's routes under /api/v1/agent/
(a chat's agent key) and the person's routes (their API token) of connections,
messages and activity. The routes of /api/v1/chats are all in crosstalk.chat_api.

Thin: ninja parses with peers.inputs and checks answers against peers.outputs;
the check_* functions decide. The two routes that may wait (MessageChat with a
wait, the inbox's long-poll) are async: they wait on the channel layer, holding
no worker thread and no database connection meanwhile."""

from typing import Annotated

from asgiref.sync import sync_to_async
from ninja import Field, Router, Status

from chats.api import AgentKey, PersonToken
from chats.outputs import Page, problems
from chats.selectors import access_chat
from kernel.api import page
from kernel.inputs import Limit, Offset
from peers import actions, waiting
from peers.inputs import (
    ConnectInput,
    MessageChatInput,
    MessageSearch,
    PersonMessageInput,
    SaidSearch,
    SeenInput,
    parse,
)
from peers.outputs import (
    ActivityOut,
    EntryOut,
    InboxOut,
    MessageOut,
    ReachableChat,
    SearchOut,
    SentOut,
    WatchOut,
)
from peers.said import results_json, search_said
from peers.selectors import access_message, account_activity, find_messages
from peers.serializers import (
    activity_json,
    chats_with_how_fast,
    entry_json,
    inbox_json,
    listing,
    message_json,
    sent_json,
    watch_json,
)


def links_to_the_message(status: int) -> dict:
    """OpenAPI links from an answer that is a message to the routes that take its id,
    so clients and fuzzers can chain a send to reading or cancelling it."""
    message_id = {"message_id": "$response.body#/id"}
    links = {
        "GetMessage": {"operationId": "get_message", "parameters": message_id},
        "CancelMessage": {"operationId": "cancel_message", "parameters": message_id},
    }
    return {"responses": {status: {"links": links}}}


Seconds = Annotated[float, Field(allow_inf_nan=False)]

agent = Router(auth=AgentKey(), tags=["agent"])
person = Router(auth=PersonToken(), tags=["peers"])


# The agent's routes ----------------------------------------------------------


@agent.get("/agent/chats", response={200: Page[ReachableChat], **problems(401, 403)})
def list_reachable_chats(request):
    """ListChats: the other chats this one can reach, each with how fast it would hear."""
    return listing(chats_with_how_fast(actions.check_list_chats(request.auth.chat)))


@agent.get(
    "/agent/chats/{chat_id}", response={200: Page[EntryOut], **problems(400, 401, 403, 404, 429)}
)
def read_chat(request, chat_id: str, limit: int = 20):
    """ReadChat: the latest entries of another chat (at most 100), without interrupting it."""
    entries = actions.check_read_chat(request.auth.chat, target=chat_id, limit=limit)
    return listing([entry_json(entry) for entry in entries])


@agent.post(
    "/agent/messages",
    response={201: SentOut, 202: WatchOut, **problems(400, 401, 403, 404, 409, 413, 429)},
    openapi_extra=links_to_the_message(201),
)
async def message_chat(request, spec: MessageChatInput):
    """MessageChat; with wait_seconds the call returns the answer if it comes in time.
    notify_when_idle without text only subscribes: 202 with the subscription."""
    if spec.subscribe_only:
        watch = await sync_to_async(actions.check_watch)(request.auth.chat, to=spec.to)
        return Status(202, watch_json(watch))
    message, answer = await waiting.send_and_wait(request.auth.chat, **spec.model_dump())
    return Status(201, sent_json(message, answer))


# `notices` is there only when there are some: an empty inbox reads {"items": [], "count": 0}.
@agent.get("/agent/inbox", response={200: InboxOut, **problems(400, 401, 403)}, exclude_unset=True)
async def inbox(request, wait: Seconds = 0):
    """Messages to this chat not yet seen and not held, oldest first, and the notices of
    its sent messages not told yet; long-polls `wait` seconds (at most 60) for the first."""
    messages, notices = await waiting.poll_inbox(request.auth.chat, wait=wait)
    return inbox_json(messages, notices)


@agent.post(
    "/agent/inbox/seen",
    response={200: InboxOut, **problems(400, 401, 403, 413)},
    exclude_unset=True,
)
def mark_seen(request, seen: SeenInput):
    """Marking seen is what delivers an inbox message (path inbox) or tells a notice;
    reading never does. `ids` may name both."""
    actions.check_peers_on(request.auth.chat)
    marked = actions.check_mark_seen(request.auth.chat, ids=seen.ids)
    return inbox_json(marked, actions.take_notices(request.auth.chat, ids=seen.ids))


# The person's routes ----------------------------------------------------------


@person.post(
    "/connections", response={201: Page[MessageOut], **problems(400, 401, 403, 404, 409, 413, 429)}
)
def connect_chats(request, spec: ConnectInput):
    """Connect chats: each gets your brief, naming the others."""
    sent = actions.check_connect_chats(request.auth.user, chat_ids=spec.chats, brief=spec.brief)
    return Status(201, listing([message_json(message) for message in sent]))


@person.get("/messages", response={200: Page[MessageOut], **problems(400, 401, 404)})
def list_messages(
    request,
    chat: str | None = None,
    state: str | None = None,
    q: str | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
):
    """Messages of your account, newest first; `chat` keeps those from or to it, `state`
    those in it, and `q` those whose text has its words, best match first."""
    spec = parse(MessageSearch, {"chat": chat, "state": state, "query": q})
    return page(find_messages(request.auth.user, spec), message_json, limit, offset)


@person.get("/search", response={200: SearchOut, **problems(400, 401, 404)})
def search(
    request,
    q: str,
    chat: str | None = None,
    kind: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
):
    """Everything said in your chats (prompts, answers, peer messages) with the words of
    `q`, stemmed, newest first, the words found marked; `chat`, `kind` (prompt, answer,
    message), `since` and `until` (days, YYYY-MM-DD) narrow it."""
    fields = {"query": q, "chat": chat, "kind": kind, "since": since, "until": until}
    spec = parse(SaidSearch, {k: v for k, v in fields.items() if v is not None})
    return results_json(search_said(request.auth.user, spec, limit=limit, offset=offset))


@person.post(
    "/messages",
    response={201: MessageOut, **problems(400, 401, 403, 404, 409, 413, 429)},
    openapi_extra=links_to_the_message(201),
)
def send_message(request, spec: PersonMessageInput):
    """A message from you (or as one of your chats, `from_chat`) to a chat."""
    message = actions.check_send_as_person(
        request.auth.user,
        from_chat=spec.from_chat,
        to=spec.to_chat,
        text=spec.text,
        reply_to=spec.reply_to,
    )
    return Status(201, message_json(message))


@person.get("/messages/{message_id}", response={200: MessageOut, **problems(401, 404)})
def get_message(request, message_id: str):
    message = access_message(request.auth.user, message_id)
    if message is None:
        raise actions.no_message()
    return message_json(message)


@person.post("/messages/{message_id}/cancel", response={200: MessageOut, **problems(401, 404, 409)})
def cancel_message(request, message_id: str):
    """Remove a message no agent has taken yet."""
    return message_json(actions.check_cancel_message(request.auth.user, message_id=message_id))


@person.post(
    "/messages/{message_id}/approve", response={200: MessageOut, **problems(401, 404, 409)}
)
def approve_message(request, message_id: str):
    """Let a message awaiting your approval go on, by the fastest path its chat offers now."""
    return message_json(actions.check_approve_message(request.auth.user, message_id=message_id))


@person.post("/messages/{message_id}/deny", response={200: MessageOut, **problems(401, 404, 409)})
def deny_message(request, message_id: str):
    """Cancel a message awaiting your approval (`detail: denied`); its sender is told."""
    return message_json(actions.check_deny_message(request.auth.user, message_id=message_id))


@person.get("/activity", response={200: Page[ActivityOut], **problems(400, 401, 404)})
def activity(request, chat: str | None = None, limit: Limit = 50, offset: Offset = 0):
    """Activity rows, newest first; `chat` keeps rows whose chat, target or message involve it."""
    user = request.auth.user
    scope = access_chat(user, chat) if chat is not None else None
    return page(account_activity(user, scope), activity_json, limit, offset)
