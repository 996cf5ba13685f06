"""delete_chat, the twin of DELETE /api/v1/chats/{id} (crosstalk.chat_lifecycle).
Renaming and archiving are update_chat's `name` and `archived` (crosstalk.mcp.chat_tools)."""

from chats.api import Caller
from crosstalk.chat_lifecycle import check_delete_chat
from peers.mcp.inputs import ChatInput
from peers.mcp.registry import Answer, Tool


def delete_chat(caller: Caller, spec: ChatInput) -> Answer:
    check_delete_chat(caller.user, spec.chat)
    return Answer(
        f"Deleted the chat {spec.chat}: its turn stopped, its keys no longer work, its "
        "conversation is gone; its messages stay in the other chats' history, from or to "
        '"a deleted chat".',
        {},
    )


TOOLS = [
    Tool(
        "delete_chat",
        "Delete a chat for good (`chat`: its id): a running turn is stopped first, its agent "
        "keys stop working, its conversation is removed; messages to and from it stay in the "
        'other chats\' history, naming "a deleted chat". To keep it but put it away, use '
        "update_chat with `archived: true`.",
        ChatInput,
        delete_chat,
    ),
]
