"""Typed output of peer messaging, the shapes peers.serializers build (see chats.outputs)."""

from typing import Literal

from pydantic import Field

from chats.models import Entry
from chats.outputs import ChatOut, Moment, Output
from peers.models import Activity, IdleWatch, PeerMessage

State = Literal[tuple(PeerMessage.State.values)]


class MessageOut(Output):
    id: str
    from_chat: str | None = Field(description="None when the person sent it.")
    to_chat: str | None = Field(description="None when it answers the person.")
    sent_by: Literal[tuple(PeerMessage.SentBy.values)]
    text: str
    reply_to: str | None
    exchange: str
    chain: str
    hop: int
    state: State
    detail: str = Field(description="The path when delivered, else the reason; or ''.")
    path: Literal[tuple(PeerMessage.Path.values)] | None
    reason: Literal[tuple(PeerMessage.Reason.values)] | None
    answered: bool
    answer: str | None
    answer_refused: str | None = Field(
        description='Why its agent\'s answer was not sent ("<code>: <sentence>"), else None.'
    )
    words: str = Field(description="The state in words, as the pages show it.")
    created_at: Moment | None
    delivered_at: Moment | None


class WatchOut(Output):
    """A notifyWhenIdle subscription."""

    id: str
    chat: str = Field(description="The chat whose next turn end is awaited.")
    state: Literal["open", *IdleWatch.Outcome.values]
    expires_at: Moment | None
    notice: str | None = Field(description="The notice's message id, once sent.")


class SentOut(MessageOut):
    """MessageChat's answer: the message, and the answer a wait took (if any)."""

    answer_message: MessageOut | None
    note: str | None = Field(description="What to do while the message is held.")
    notify_when_idle: WatchOut | None = Field(
        default=None, description="The subscription notifyWhenIdle made, else None."
    )


class NoticeOut(Output):
    """A later turn of a message this chat's agent sent (peers.actions.notices)."""

    id: str
    message: str
    state: str = Field(
        description="approved, denied, held, removed, cancelled, not_delivered or answered"
    )
    text: str
    created_at: Moment | None


class InboxOut(Output):
    """The agent's inbox: messages (items, count) and the notices it was not told yet
    (the key only when there are some)."""

    items: list[MessageOut]
    count: int
    notices: list[NoticeOut] = Field(default_factory=list)


class HowFast(Output):
    path: str
    words: str
    median_seconds: float | None


class ReachableChat(ChatOut):
    how_fast: HowFast


class EntryOut(Output):
    kind: Literal[tuple(Entry.Kind.values)]
    text: str
    created_at: Moment | None
    message: str | None


class ActivityOut(Output):
    id: str
    chat: str | None
    action: Literal[tuple(Activity.Action.values)]
    target: str | None
    message: str | None
    detail: str
    count: int
    created_at: Moment | None


class FoundOut(Output):
    """Something said that a search found (GET /api/v1/search, MCP search)."""

    id: int = Field(description="The conversation entry's id.")
    kind: Literal["prompt", "answer", "message"]
    chat: str = Field(description="The chat it was said in.")
    chat_name: str
    message: str | None = Field(description="The peer message, for a message.")
    text: str = Field(description="The excerpt that holds the words found, as plain text.")
    html: str = Field(
        description="The excerpt as Markdown rendered and sanitised, the words found in <mark>."
    )
    created_at: Moment | None


class SearchOut(Output):
    """One page of what was found, newest first; `count` stops at 100 (`more`: beyond)."""

    items: list[FoundOut]
    count: int
    more: bool
