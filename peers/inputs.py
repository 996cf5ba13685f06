"""Typed input of peer messaging, shared by REST and MCP. Types only: blank text,
unknown chats and the limits are the check_* functions' to refuse, with their codes.

MCP spells fields in camelCase (replyTo, waitSeconds), REST in snake_case; both parse."""

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from kernel.inputs import Input, parse

__all__ = [
    "ConnectInput",
    "MessageChatInput",
    "MessageSearch",
    "PersonMessageInput",
    "SaidSearch",
    "SeenInput",
    "parse",
]

# Out of range (below 0, above the longest wait) is clamped by the action, never refused.
WaitSeconds = Annotated[float, Field(allow_inf_nan=False)]


class CamelInput(Input):
    model_config = ConfigDict(
        extra="forbid", strict=True, validate_by_name=True, validate_by_alias=True
    )


class MessageChatInput(CamelInput):
    to: str
    # Optional only with notify_when_idle (subscribe only); else blank is empty_message.
    text: str = ""
    reply_to: str | None = Field(default=None, alias="replyTo")
    wait_seconds: WaitSeconds = Field(default=45, alias="waitSeconds")
    notify_when_idle: bool = Field(default=False, alias="notifyWhenIdle")

    @property
    def subscribe_only(self) -> bool:
        """notifyWhenIdle with no text: no message, only the subscription."""
        return self.notify_when_idle and not self.text.strip()


class PersonMessageInput(CamelInput):
    from_chat: str | None = Field(default=None, alias="fromChat")
    to_chat: str = Field(alias="toChat")
    text: str
    reply_to: str | None = Field(default=None, alias="replyTo")


class ConnectInput(Input):
    chats: list[str]
    brief: str


class SeenInput(Input):
    ids: list[str]


class MessageSearch(Input):
    """Which of the account's messages: REST's ?chat=&state=&q=, MCP read_peers' chat, state
    and query, the Messages page's filter. The selector judges the values."""

    chat: str | None = Field(default=None, description="a chat id: only messages from or to it")
    state: str | None = Field(
        default=None, description="pending, queued, delivered, cancelled or not_delivered"
    )
    query: str | None = Field(
        default=None, description="words to find in the text, best match first"
    )


DAY = r"^\d{4}-\d{2}-\d{2}$"


class SaidSearch(Input):
    """Search over everything said (REST GET /api/v1/search, MCP search, the /search/
    page): prompts, answers and peer messages with these words, stemmed, newest first."""

    query: str = Field(
        description="words to find, stemmed (`ports` finds port); every word must be there"
    )
    chat: str | None = Field(default=None, description="a chat id: only what was said in it")
    kind: Literal["prompt", "answer", "message"] | None = Field(
        default=None, description="prompt (yours), answer (an agent's) or message (a peer message)"
    )
    since: str | None = Field(
        default=None, pattern=DAY, description="a day, YYYY-MM-DD (UTC): from its start"
    )
    until: str | None = Field(
        default=None, pattern=DAY, description="a day, YYYY-MM-DD (UTC): to its end"
    )
