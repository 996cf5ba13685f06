"""Typed input shared by REST, MCP and pages. Types only: the stable codes
(empty_message, no_chat, …) belong to the check_* functions, never to parsing."""

import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from chats.models import Chat
from chats.refusals import Refusal

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
# A page of a list (REST's query, MCP's arguments): a limit above 100 gives 100.
Limit = Annotated[int, Field(ge=1, description="How many (at most 100 are given).")]
Offset = Annotated[int, Field(ge=0, le=2**31 - 1, description="How many to skip.")]
# A CLI's session id, as Claude Code, Codex and Gemini make them: it goes on an argv
# (`--resume`), so it may never read as an option.
SESSION_ID_CHARACTERS = r"[A-Za-z0-9_.:][A-Za-z0-9_.:-]{0,127}"
SessionId = Annotated[str, StringConstraints(pattern=f"^{SESSION_ID_CHARACTERS}$")]
AgentKind = Literal[tuple(Chat.Agent.values)]
OriginKind = Literal[tuple(Chat.Origin.values)]


# NUL and lone surrogates: PostgreSQL cannot store them, UTF-8 cannot encode them.
UNSAFE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def unsafe_text(text: str) -> bool:
    return UNSAFE_CHARACTERS.search(text) is not None


def unsafe_field(data: object, path: str = "") -> str | None:
    """The first field (dotted path) holding an unsafe string, key or value; or None."""
    stack = [(data, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            if unsafe_text(value):
                return where or "body"
        elif isinstance(value, dict):
            for key, item in value.items():
                name = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and unsafe_text(key):
                    return where or "body"
                stack.append((item, name))
        elif isinstance(value, list | tuple):
            stack.extend((item, f"{where}.{i}") for i, item in enumerate(value))
    return None


class Input(BaseModel):
    """Every input model, whichever face parses it (REST, MCP, pages), refuses NUL and
    lone surrogates in any string: one check, so no face can store what another refuses."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def safe_strings(cls, data: object) -> object:
        if (field := unsafe_field(data)) is not None:
            raise PydanticCustomError(
                "unsafe_text",
                "Text may not contain NUL characters or lone surrogates (in {field})",
                {"field": field},
            )
        return data


class ChatCreate(Input):
    name: Name
    repository: Short = ""
    branch: Short = ""
    agent: AgentKind = "demo"
    model: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    permission_mode: Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] = ""
    peers: bool | None = None
    origin: OriginKind = "user"
    folder: Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)] = ""
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
    model: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    permission_mode: (
        Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] | None
    ) = None


class PromptInput(Input):
    text: str
    send_queued: bool = True


def parse[T: BaseModel](model: type[T], data: object) -> T:
    if not isinstance(data, dict):
        raise Refusal("invalid_input", "Send a JSON object.")
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise Refusal("invalid_input", f"{field}: {first['msg']}.") from None


def valid_session_id(value: str) -> bool:
    return re.fullmatch(SESSION_ID_CHARACTERS, value) is not None
