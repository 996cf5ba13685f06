"""What waits for a chat, carried by every answer of its agent's tools: a session
with no hooks gets its messages in its tool results (path tool_result), framed as
the hooks frame them, a few at a time, with how to read the rest (ReadInbox)."""

import mcp_types as types

from chats.api import Caller
from peers import actions
from peers.actions.notices import frame_notices
from peers.framing import frame_all

KEY = "peer_messages"
NOTICES = "crosstalk_notices"


def carried_text(messages: list, left: int) -> str:
    head = f"{len(messages)} message(s) waited for you; they are delivered with this answer:"
    tail = f"\n\n{left} more wait: call ReadInbox to read them." if left else ""
    return f"{head}\n\n{frame_all(messages)}{tail}"


def with_waiting(caller: Caller, result: types.CallToolResult) -> types.CallToolResult:
    """`result`, ending with what waited for the caller's chat (one that takes part): the
    notices of the messages it sent, then the messages sent to it."""
    chat = caller.chat
    notices = actions.take_notices(chat) if actions.has_notices(chat) else []
    messages, left = actions.take_for_tool_result(chat)
    if not messages and not notices:
        return result
    # In the JSON too, framed: a CLI may hand the model the structured content alone.
    body = dict(result.structured_content or {})
    if notices:
        body[NOTICES] = frame_notices(notices)
        body[f"{NOTICES}_ids"] = [notice.pk for notice in notices]
    if messages:
        body[KEY] = carried_text(messages, left)
        body["peer_message_ids"] = [message.pk for message in messages]
        body[f"{KEY}_left"] = left
    added = [types.TextContent(type="text", text=body[k]) for k in (NOTICES, KEY) if k in body]
    content = [*result.content, *added]
    return result.model_copy(update={"content": content, "structured_content": body})
