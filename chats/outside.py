"""Starting a chat from outside through the chat faces (REST POST /api/v1/chats, MCP
start_chat): origins sits above chats, so it hands its starter in at start-up."""

from collections.abc import Callable

from chats.actions import check_create_chat
from chats.inputs import ChatCreate, ChatStart
from chats.models import Chat
from chats.refusals import Refusal

type Starter = Callable[..., Chat]
starters: dict[str, Starter] = {}


def register_starter(origin: str, starter: Starter) -> None:
    """starter(user, *, spec: ChatCreate, text: str) -> Chat, raising Refusal."""
    starters[origin] = starter


def check_start_chat(user, *, spec: ChatStart) -> tuple[Chat, str]:
    """The chat and its agent key; a chat started from outside has none to hand out
    (its turns run on the server with keys of their own), so its key is ""."""
    fields: ChatCreate = spec.chat_fields()
    if not spec.text:
        return check_create_chat(user, spec=fields)
    starter = starters.get(spec.origin)
    if starter is None:
        raise Refusal(
            "invalid_input",
            'text: only a chat of origin "automation" starts with a first request here.',
        )
    return starter(user, spec=fields, text=spec.text), ""
