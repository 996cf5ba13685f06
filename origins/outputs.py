"""Typed output of origins, the shapes origins.serializers build (REST checks its answers
with them; the OpenAPI document is generated from them)."""

from typing import Literal

from pydantic import Field

from chats.models import Chat, Turn
from chats.outputs import Moment, Output
from origins.models import Origin, OriginReply


class OriginOut(Output):
    id: str
    kind: Literal[tuple(Origin.Kind.values)]
    name: str
    enabled: bool
    url: str = Field(description="What the outside is given: its URL (automation: a command).")
    requests_per_hour: int | None = Field(description="Its own limit; null: the admin's.")
    limit: int = Field(description="The limit that applies now.")
    agent: Literal[tuple(Chat.Agent.values)]
    repository: str
    branch: str
    folder: str
    model: str
    permission_mode: str
    command: str
    callback_url: str
    handle: str
    api_url: str
    app_id: str
    installation_id: str
    stored: list[Literal["token", "bot_token", "private_key"]] = Field(
        description="The secrets it holds (never shown)."
    )
    created_at: Moment | None


class OriginWithSecret(OriginOut):
    secret: str = Field(description="Its secret, shown this once.")


class RequestOut(Output):
    id: str = Field(description="The request's delivery id.")
    chat: str | None
    turn_state: Literal[tuple(Turn.State.values)] | None
    error: str
    created_at: Moment | None


class AnswerOut(Output):
    id: int
    chat: str
    thread: str
    text: str
    state: Literal[tuple(OriginReply.State.values)]
    attempts: int
    resends: int
    last_error: str
    created_at: Moment | None
    sent_at: Moment | None
