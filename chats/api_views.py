"""REST for people: /api/v1/chats and one chat's prompts (docs/api.md).

Thin: ninja parses with chats.inputs and checks answers against chats.outputs;
authorize with chats.selectors, change with chats.actions. Another account's chat
answers exactly like a missing one. GET/PATCH of one chat and its stop are peers'
(the switch and Stop carry peers rules)."""

from ninja import Router, Status

from chats.actions import check_prompt
from chats.api import PersonToken, page
from chats.inputs import ChatStart, Limit, Offset, PromptInput
from chats.outputs import ChatCreated, ChatOut, Page, PromptAccepted, problems
from chats.outside import check_start_chat
from chats.selectors import access_chat, account_chats
from chats.serializers import chat_json, turn_json

router = Router(auth=PersonToken(), tags=["chats"])


@router.get("/chats", response={200: Page[ChatOut], **problems(400, 401)})
def list_chats(request, limit: Limit = 50, offset: Offset = 0):
    """Your chats, by name."""
    return page(account_chats(request.auth.user), chat_json, limit, offset)


@router.post("/chats", response={201: ChatCreated, **problems(400, 401, 403, 409, 413, 429)})
def create_chat(request, spec: ChatStart):
    """A new chat; its agent key is in the answer, this once (only its digest is kept).
    With `origin: "automation"` and `text`: started from outside, running that request."""
    chat, agent_key = check_start_chat(request.auth.user, spec=spec)
    return Status(201, {**chat_json(chat), "agent_key": agent_key})


@router.post(
    "/chats/{chat_id}/prompts",
    response={202: PromptAccepted, **problems(400, 401, 403, 404, 409, 413, 429)},
)
def send_prompt(request, chat_id: str, prompt: PromptInput):
    """Your prompt: accepted, the turn requested; the runner starts it (or queues it)."""
    chat = access_chat(request.auth.user, chat_id)
    turn = check_prompt(chat, text=prompt.text, send_queued=prompt.send_queued)
    return Status(202, {**chat_json(chat), "turn": turn_json(turn)})
