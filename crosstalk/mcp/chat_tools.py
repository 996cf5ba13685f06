"""The person's tools that make or change a chat, the twins of POST and PATCH
/api/v1/chats (crosstalk.chat_api): here at the top, beside those routes, because
start_chat with `origin: "automation"` and `text` is origins' work."""

from chats.api import Caller
from chats.inputs import ChatStart
from chats.selectors import access_chat
from chats.serializers import chat_json
from crosstalk.start_chat import check_start_chat
from peers import actions
from peers.mcp import text
from peers.mcp.inputs import UpdateChatInput
from peers.mcp.person_tools import chat_answer
from peers.mcp.registry import Answer, Tool


def start_chat(caller: Caller, spec: ChatStart) -> Answer:
    chat, agent_key = check_start_chat(caller.user, spec=spec)
    body = {**chat_json(chat), "agent_key": agent_key}
    if agent_key:
        summary = f"Started the chat {chat.name}. Its agent key, shown this once: {agent_key}"
    else:
        summary = f"Started the chat {chat.name} from outside ({chat.origin}); its turn runs now."
    return Answer(f"{summary}\n{text.chat_line(body)}", body)


def update_chat(caller: Caller, spec: UpdateChatInput) -> Answer:
    chat = access_chat(caller.user, spec.chat)
    changed = actions.check_update_chat(caller.user, chat, spec=spec.changes())
    return chat_answer(changed, "Updated:")


CHAT_FIELDS = (
    "`name`, `repository`, `branch`, `agent` (demo, claude-code, codex, gemini, command), "
    "`model`, `permission_mode`, `peers` (agent-to-agent on or off), `inbound` (`accept` or "
    "`ask`; absent: your default, else `ask` for a mode that bypasses approvals), `origin`, "
    "`folder` "
    "(a working folder inside your own, `<root>/<username>/`, absolute or relative to it), "
    "`command`"
)

TOOLS = [
    Tool(
        "start_chat",
        f"Create a chat. Fields: {CHAT_FIELDS}. Only `name` is required. The answer carries "
        'its agent key, shown this once. With `origin: "automation"` and `text`, the chat is '
        "started from outside: it runs a turn at once with `text` framed as outside content, "
        "and it can receive messages but never list, read or message other chats.",
        ChatStart,
        start_chat,
        creates=True,
    ),
    Tool(
        "update_chat",
        "Change a chat (`chat`: its id): any of `name`, `peers`, `model`, `permission_mode`, "
        "`folder` (another of your working folders), `inbound` (`accept`, or `ask`: other "
        "chats' messages wait for your approval), `archived` (true: out of every list, "
        "picker and reach, messages to it refused not_reachable; false: back).",
        UpdateChatInput,
        update_chat,
    ),
]
