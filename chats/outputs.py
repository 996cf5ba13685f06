"""Typed output of chats, the shapes chats.serializers build: REST declares and
checks its answers with them (the OpenAPI document is generated from them).
A serializer that grows a key these do not name fails loudly, never silently."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from chats.models import Chat, Turn

Moment = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Problem(Output):
    """Every refusal: a stable code (docs/rules.md) and a sentence the caller can act on."""

    code: str
    message: str


class ChatOut(Output):
    id: str
    name: str
    repository: str
    branch: str
    agent: Literal[tuple(Chat.Agent.values)]
    model: str
    permission_mode: str
    origin: Literal[tuple(Chat.Origin.values)]
    status: Literal[tuple(Chat.Status.values)]
    peers: bool
    inbound: Literal[tuple(Chat.Inbound.values)] = Field(
        description="`ask`: another chat's message waits for your approval."
    )
    archived: bool
    last_ran_at: Moment | None
    last_asked: str
    last_answered: str
    failure: str | None = Field(description="Why the last turn failed, while the chat is failed.")


class ChatCreated(ChatOut):
    agent_key: str = Field(description="The chat's agent key, shown this once.")


class TurnOut(Output):
    id: str
    chat: str
    trigger: Literal[tuple(Turn.Trigger.values)]
    state: Literal[tuple(Turn.State.values)]
    send_queued: bool
    requested_at: Moment | None


class PromptAccepted(ChatOut):
    turn: TurnOut | None  # None: queued for the chat's attached session (queued_message)
    queued_message: dict | None = None


class Page[T](Output):
    """A list: one page of items and `count`, the total."""

    items: list[T]
    count: int


def problems(*statuses: int) -> dict[int, type[Problem]]:
    """The refusals a route may answer with, for its `response=` declaration."""
    return dict.fromkeys(statuses, Problem)
