"""REST for peer messaging (CONTRACT.md): the agent's routes under /api/v1/agent/
(a chat's agent key) and the person's routes (their API token).

Thin: parse with peers.inputs, call the check_* functions, render with
peers.serializers. The two routes that may wait (MessageChat with a wait, the
inbox's long-poll) are async views: they wait on the channel layer, holding no
worker thread and no database connection meanwhile."""

from collections.abc import Awaitable, Callable
from functools import wraps

from asgiref.sync import sync_to_async
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from pydantic import BaseModel

from chats.api import ApiView, Caller, authenticate, json_body, paginated, refusal_response
from chats.inputs import ChatUpdate
from chats.refusals import Refusal
from chats.selectors import access_chat
from chats.serializers import chat_json
from peers import actions, waiting
from peers.inputs import ConnectInput, MessageChatInput, PersonMessageInput, SeenInput, parse
from peers.models import PeerMessage
from peers.selectors import access_message, account_activity, peer_messages, reach_of
from peers.serializers import (
    activity_json,
    chats_with_how_fast,
    entry_json,
    listing,
    message_json,
    sent_json,
)

LONGEST_POLL = 60


def parse_body[T: BaseModel](model: type[T], request, caller: Caller) -> T:
    with actions.input_refusals_recorded(caller.user, caller.chat):
        return parse(model, json_body(request))


def whole_number(request, name: str, default: int) -> int:
    try:
        return int(request.GET.get(name, default))
    except ValueError:
        raise Refusal("invalid_input", f"{name} must be a whole number.") from None


# The agent's routes ----------------------------------------------------------


class AgentApi(ApiView):
    caller_kind = "agent"


class AgentChatsApi(AgentApi):
    """ListChats: the other chats this one can reach, each with how fast it would hear."""

    def get(self, request, caller: Caller) -> dict:
        return listing(chats_with_how_fast(actions.check_list_chats(caller.chat)))


class AgentChatApi(AgentApi):
    """ReadChat: the latest entries of another chat, without interrupting it."""

    def get(self, request, caller: Caller, chat_id: str) -> dict:
        limit = min(max(whole_number(request, "limit", 20), 1), 100)
        entries = actions.check_read_chat(caller.chat, target=chat_id, limit=limit)
        return listing([entry_json(entry) for entry in entries])


class AgentSeenApi(AgentApi):
    """Marking seen is what delivers an inbox message (path inbox); reading never does."""

    def post(self, request, caller: Caller) -> dict:
        actions.check_peers_on(caller.chat)
        seen = parse_body(SeenInput, request, caller)
        marked = actions.check_mark_seen(caller.chat, ids=seen.ids)
        return listing([message_json(m) for m in marked])


def agent_caller(request) -> Caller:
    caller = authenticate(request)
    if caller is None or caller.chat is None:
        raise AgentApi().unauthenticated()
    return caller


type AsyncHandler = Callable[..., Awaitable[tuple[int, dict]]]


def async_route(method: str) -> Callable[[AsyncHandler], Callable]:
    """ApiView's translation (wrong method, refusals → JSON) for an async view."""

    def decorate(handler: AsyncHandler) -> Callable:
        @csrf_exempt
        @wraps(handler)
        async def view(request, **kwargs) -> JsonResponse:
            if request.method != method:
                response = refusal_response(Refusal("method_not_allowed", f"Use {method} here."))
                response["Allow"] = method
                return response
            try:
                status, body = await handler(request, **kwargs)
            except Refusal as refusal:
                return refusal_response(refusal)
            return JsonResponse(body, status=status)

        return view

    return decorate


def authenticated_send(request) -> PeerMessage:
    """Authenticate, parse and send, in one trip to a thread; the wait comes after."""
    caller = agent_caller(request)
    spec = parse_body(MessageChatInput, request, caller)
    message = actions.check_send_message(
        caller.chat,
        to=spec.to,
        text=spec.text,
        reply_to=spec.reply_to,
        wait_seconds=spec.wait_seconds,
    )
    if message.waiting_until is not None:
        waiting.release_connection()  # none held while it waits
    return message


@async_route("POST")
async def agent_messages(request) -> tuple[int, dict]:
    """MessageChat; with wait_seconds the call returns the answer if it comes in time."""
    message = await sync_to_async(authenticated_send)(request)
    message, answer = await waiting.wait_for_answer(message)
    return 201, sent_json(message, answer)


def inbox_caller(request) -> tuple[Caller, float]:
    caller = agent_caller(request)
    actions.check_peers_on(caller.chat)
    try:
        wait = float(request.GET.get("wait", 0))
    except ValueError:
        raise Refusal("invalid_input", "wait must be a number of seconds.") from None
    if wait != wait:  # NaN
        raise Refusal("invalid_input", "wait must be a number of seconds.")
    return caller, min(max(wait, 0.0), LONGEST_POLL)


@async_route("GET")
async def agent_inbox(request) -> tuple[int, dict]:
    """Messages to this chat not yet seen and not held, oldest first; long-polls `wait` s."""
    caller, wait = await sync_to_async(inbox_caller)(request)
    messages = await waiting.wait_for_inbox(caller.chat, wait=wait)
    return 200, listing([message_json(message) for message in messages])


# The person's routes ----------------------------------------------------------


class ReachApi(ApiView):
    """The chats this chat could message now, each with how fast it would hear."""

    def get(self, request, caller: Caller, chat_id: str) -> dict:
        return listing(chats_with_how_fast(reach_of(access_chat(caller.user, chat_id))))


class ConnectionsApi(ApiView):
    def post(self, request, caller: Caller) -> tuple[int, dict]:
        spec = parse_body(ConnectInput, request, caller)
        sent = actions.check_connect_chats(caller.user, chat_ids=spec.chats, brief=spec.brief)
        return 201, listing([message_json(message) for message in sent])


class MessagesApi(ApiView):
    def get(self, request, caller: Caller) -> dict:
        messages = peer_messages(caller.user, chat_id=request.GET.get("chat"))
        return paginated(request, messages, message_json)

    def post(self, request, caller: Caller) -> tuple[int, dict]:
        spec = parse_body(PersonMessageInput, request, caller)
        message = actions.check_send_as_person(
            caller.user,
            from_chat=spec.from_chat,
            to=spec.to_chat,
            text=spec.text,
            reply_to=spec.reply_to,
        )
        return 201, message_json(message)


class MessageApi(ApiView):
    def get(self, request, caller: Caller, message_id: str) -> dict:
        message = access_message(caller.user, message_id)
        if message is None:
            raise actions.no_message()
        return message_json(message)


class MessageCancelApi(ApiView):
    def post(self, request, caller: Caller, message_id: str) -> dict:
        return message_json(actions.check_cancel_message(caller.user, message_id=message_id))


class ActivityApi(ApiView):
    """Activity rows, newest first; `chat` matches rows whose chat, target or message involve it."""

    def get(self, request, caller: Caller) -> dict:
        chat_id = request.GET.get("chat")
        chat = access_chat(caller.user, chat_id) if chat_id is not None else None
        return paginated(request, account_activity(caller.user, chat), activity_json)


class ChatApi(ApiView):
    """One chat; PATCH may switch agent-to-agent messaging, which is logged."""

    def get(self, request, caller: Caller, chat_id: str) -> dict:
        return chat_json(access_chat(caller.user, chat_id))

    def patch(self, request, caller: Caller, chat_id: str) -> dict:
        chat = access_chat(caller.user, chat_id)
        spec = parse(ChatUpdate, json_body(request))
        return chat_json(actions.check_update_chat(caller.user, chat, spec=spec))


class ChatStopApi(ApiView):
    """Stop: the running turn ends, and messages wait until the person writes."""

    def post(self, request, caller: Caller, chat_id: str) -> dict:
        return chat_json(actions.check_stop_chat(access_chat(caller.user, chat_id)))
