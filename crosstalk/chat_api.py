"""REST for one resource, the person's chats: every route of /api/v1/chats in one module
(docs/api.md). It lives at the top because its routes call three apps: chats (list,
create, prompt), peers (the switch and Stop carry peers rules, the reach is peers') and
origins (a chat started with `origin: "automation"` and `text`).

Thin: ninja parses with chats.inputs and checks answers against chats.outputs;
authorize with chats.selectors, change with the actions. Another account's chat
answers exactly like a missing one."""

from ninja import Router, Status

from chats.api import PersonToken
from chats.inputs import ChatStart, ChatUpdate, PromptInput
from chats.outputs import ChatCreated, ChatOut, Page, PromptAccepted, problems
from chats.selectors import access_chat, listed_chats
from chats.serializers import chat_json, turn_json
from crosstalk.chat_lifecycle import check_delete_chat
from crosstalk.start_chat import check_start_chat
from kernel.api import page
from kernel.inputs import Limit, Offset
from peers import actions
from peers.outputs import ReachableChat
from peers.selectors import reach_of
from peers.serializers import chats_with_how_fast, listing, message_json

router = Router(auth=PersonToken(), tags=["chats"])


@router.get("/chats", response={200: Page[ChatOut], **problems(400, 401)})
def list_chats(request, limit: Limit = 50, offset: Offset = 0, archived: bool = False):
    """Your chats, by name; archived ones only with `archived=1`."""
    return page(listed_chats(request.auth.user, archived=archived), chat_json, limit, offset)


@router.post("/chats", response={201: ChatCreated, **problems(400, 401, 403, 409, 413, 429)})
def create_chat(request, spec: ChatStart):
    """A new chat; its agent key is in the answer, this once (only its digest is kept).
    With `origin: "automation"` and `text`: started from outside, running that request."""
    chat, agent_key = check_start_chat(request.auth.user, spec=spec)
    return Status(201, {**chat_json(chat), "agent_key": agent_key})


@router.get("/chats/{chat_id}", response={200: ChatOut, **problems(401, 404)})
def get_chat(request, chat_id: str):
    return chat_json(access_chat(request.auth.user, chat_id))


@router.patch("/chats/{chat_id}", response={200: ChatOut, **problems(400, 401, 404, 409, 413)})
def update_chat(request, chat_id: str, spec: ChatUpdate):
    """One chat's name, model, folder, switch or `archived`; a switch is logged."""
    chat = access_chat(request.auth.user, chat_id)
    return chat_json(actions.check_update_chat(request.auth.user, chat, spec=spec))


@router.delete("/chats/{chat_id}", response={204: None, **problems(401, 404)})
def delete_chat(request, chat_id: str):
    """Stops its running turn, revokes its keys, removes its conversation; its messages
    stay in the other chats' history, from or to "a deleted chat"."""
    check_delete_chat(request.auth.user, chat_id)
    return Status(204, None)


@router.post(
    "/chats/{chat_id}/prompts",
    response={202: PromptAccepted, **problems(400, 401, 403, 404, 409, 413, 429)},
)
def send_prompt(request, chat_id: str, prompt: PromptInput):
    """Your prompt: accepted, the turn requested; the runner starts it (or queues it).
    To a chat whose session runs in your terminal (a CLI chat with no folder): queued for
    that session as a message from you (`turn` null, `queued_message` set)."""
    chat = access_chat(request.auth.user, chat_id)
    turn, queued = actions.check_prompt_or_queue(
        chat, text=prompt.text, send_queued=prompt.send_queued
    )
    if queued is not None:  # an attached session's chat: queued for it, never run here
        chat.refresh_from_db()
        return Status(
            202, {**chat_json(chat), "turn": None, "queued_message": message_json(queued)}
        )
    return Status(202, {**chat_json(chat), "turn": turn_json(turn), "queued_message": None})


@router.post("/chats/{chat_id}/stop", response={200: ChatOut, **problems(401, 404, 409)})
def stop_chat(request, chat_id: str):
    """Stop: the running turn ends, and messages wait until the person writes."""
    return chat_json(actions.check_stop_chat(access_chat(request.auth.user, chat_id)))


@router.get("/chats/{chat_id}/reach", response={200: Page[ReachableChat], **problems(401, 404)})
def reach(request, chat_id: str):
    """The chats this chat could message now, each with how fast it would hear."""
    return listing(chats_with_how_fast(reach_of(access_chat(request.auth.user, chat_id))))
