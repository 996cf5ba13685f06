"""The inbox's typed input and output, shared by REST and MCP (and checked against the
answers)."""

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from chats.outputs import Moment, Output
from crosstalk.inbox.kinds import KINDS
from kernel.inputs import Input, Limit

# Each kind is read up to offset + limit and merged: a page deeper than this is refused
# (400 invalid_input) rather than read whole. Done items leave the list, so it stays short.
MOST_OFFSET = 1000
InboxOffset = Annotated[int, Field(ge=0, le=MOST_OFFSET)]
ItemId = Annotated[str, StringConstraints(min_length=1, max_length=80)]


class InboxQuery(Input):
    limit: Limit = 50
    offset: InboxOffset = 0
    done: bool = Field(default=False, description="items marked done too")


class MarkDone(Input):
    items: Annotated[list[ItemId], Field(max_length=500)] = []
    all: bool = Field(default=False, description="every item now waiting")


class InboxItemOut(Output):
    id: str
    kind: Literal[tuple(kind.name for kind in KINDS)]
    chat: str | None
    message: str | None
    text: str
    created_at: Moment
    done: bool


class MarkedDone(Output):
    items: list[str]
