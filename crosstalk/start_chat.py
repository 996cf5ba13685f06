"""Starting a chat through the chat faces (REST POST /api/v1/chats, MCP start_chat): a
plain chat is chats' to make; one with `origin: "automation"` and `text` is started from
outside by origins. The faces that may start either live here, at the top, where both
apps are importable (README's map: work above is started from above)."""

from chats.actions import check_create_chat
from chats.inputs import ChatCreate, ChatStart
from chats.models import Chat
from kernel.refusals import Refusal
from origins.actions import start_from_chat_faces


def check_start_chat(user, *, spec: ChatStart) -> tuple[Chat, str]:
    """The chat and its agent key; a chat started from outside has none to hand out
    (its turns run on the server with keys of their own), so its key is ""."""
    fields: ChatCreate = spec.chat_fields()
    if not spec.text:
        return check_create_chat(user, spec=fields)
    if spec.origin != "automation":
        raise Refusal(
            "invalid_input",
            'text: only a chat of origin "automation" starts with a first request here.',
        )
    return start_from_chat_faces(user, spec=fields, text=spec.text), ""
