"""The arguments of the tools whose REST twin takes them from the path or the query
string (REST has no body model for them). Everything with a REST body model uses that
model itself (peers.inputs, chats.inputs)."""

from pydantic import Field

from chats.inputs import ChatUpdate
from kernel.inputs import Input, Limit, Offset
from peers.inputs import CamelInput, MessageSearch, SaidSearch, WaitSeconds


class NoInput(Input):
    pass


class ReadChatInput(Input):
    chat: str
    limit: int = 20  # clamped to 1..100


class ReadInboxInput(CamelInput):
    """ReadInbox: GET /api/v1/agent/inbox's `wait`, then marking seen what it read."""

    wait_seconds: WaitSeconds = Field(default=0, alias="waitSeconds")


class PageInput(Input):
    limit: Limit = 50
    offset: Offset = 0


class ListPeerChatsInput(PageInput):
    chat: str | None = Field(default=None, description="with a chat id: the chats it can reach")
    archived: bool = Field(default=False, description="archived chats too")


class ReadPeersInput(PageInput, MessageSearch):
    """read_peers: the REST list's MessageSearch (chat, state, query) and a page."""


class ChatInput(Input):
    chat: str


class SearchInput(SaidSearch):
    """search: GET /api/v1/search's SaidSearch (query, chat, kind, since, until) and a page."""

    limit: Limit = 20
    offset: Offset = 0


class SetPeerReachInput(Input):
    chat: str
    peers: bool


class CancelInput(Input):
    message: str


class DecideInput(Input):
    """approve_peer_message / deny_peer_message: the message awaiting your approval."""

    message: str


class UpdateChatInput(ChatUpdate):
    chat: str

    def changes(self) -> ChatUpdate:
        return ChatUpdate.model_validate(self.model_dump(exclude={"chat"}), strict=True)
