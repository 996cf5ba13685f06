"""REST for people: /api/v1/chats and one chat's routes (CONTRACT.md).

Thin: parse with chats.inputs, authorize with chats.selectors, change with
chats.actions. Another account's chat answers exactly like a missing one.
GET/PATCH of one chat and its stop are peers' (the switch and Stop carry peers
rules)."""

from chats.actions import check_create_chat, check_prompt
from chats.api import ApiView, Caller, json_body, paginated
from chats.inputs import ChatCreate, PromptInput, parse
from chats.models import Chat
from chats.selectors import access_chat
from chats.serializers import chat_json, turn_json


class ChatsApi(ApiView):
    def get(self, request, caller: Caller) -> dict:
        return paginated(request, Chat.objects.filter(user=caller.user), chat_json)

    def post(self, request, caller: Caller) -> tuple[int, dict]:
        spec = parse(ChatCreate, json_body(request))
        chat, agent_key = check_create_chat(caller.user, spec=spec)
        # The agent key is shown this once; only its digest is kept.
        return 201, {**chat_json(chat), "agent_key": agent_key}


class ChatPromptsApi(ApiView):
    def post(self, request, caller: Caller, chat_id: str) -> tuple[int, dict]:
        chat = access_chat(caller.user, chat_id)
        prompt = parse(PromptInput, json_body(request))
        turn = check_prompt(chat, text=prompt.text, send_queued=prompt.send_queued)
        # Accepted: the turn is requested; the runner starts it (or queues it).
        return 202, {**chat_json(chat), "turn": turn_json(turn)}
