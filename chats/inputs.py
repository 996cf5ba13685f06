"""Typed input shared by REST, MCP and pages. Types only: the stable codes
(empty_message, no_chat, …) belong to the check_* functions, never to parsing."""

import re
from typing import Annotated, Literal

from pydantic import (
    StringConstraints,
)

from chats.models import Chat
from kernel.inputs import Input

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
# A CLI's session id, as Claude Code, Codex and Gemini make them: it goes on an argv
# (`--resume`), so it may never read as an option.
SESSION_ID_CHARACTERS = r"[A-Za-z0-9_.:][A-Za-z0-9_.:-]{0,127}"
SessionId = Annotated[str, StringConstraints(pattern=f"^{SESSION_ID_CHARACTERS}$")]
# A working folder: inside the account's own folder, absolute or relative to it (chats.folders).
Folder = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
AgentKind = Literal[tuple(Chat.Agent.values)]
OriginKind = Literal[tuple(Chat.Origin.values)]
InboundKind = Literal[tuple(Chat.Inbound.values)]


class ChatCreate(Input):
    name: Name
    repository: Short = ""
    branch: Short = ""
    agent: AgentKind = "demo"
    model: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    permission_mode: Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] = ""
    peers: bool | None = None
    # Absent: the account's default (Settings), else by the permission mode.
    inbound: InboundKind | None = None
    origin: OriginKind = "user"
    folder: Folder = ""
    command: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""


class ChatStart(ChatCreate):
    """Creating a chat (REST and MCP), or with `origin: "automation"` and `text`, starting
    one from outside: it runs a turn at once with the text framed as outside content."""

    text: str = ""

    def chat_fields(self) -> ChatCreate:
        return ChatCreate.model_validate(self.model_dump(exclude={"text"}), strict=True)


class ChatUpdate(Input):
    name: Name | None = None
    peers: bool | None = None
    inbound: InboundKind | None = None
    model: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    permission_mode: (
        Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] | None
    ) = None
    # Moving a chat to another of the account's folders ("": none, an attached session).
    folder: Folder | None = None
    # Out of every list, picker and reach (true), or back (false).
    archived: bool | None = None


class PromptInput(Input):
    text: str
    send_queued: bool = True


def valid_session_id(value: str) -> bool:
    return re.fullmatch(SESSION_ID_CHARACTERS, value) is not None
