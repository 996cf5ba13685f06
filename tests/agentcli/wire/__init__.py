"""The three wire dialects the fake speaks. Each module reads a request body into
script events, turns a script directive into that API's tool call, and encodes the
answer (SSE or JSON). Shared pieces live here."""

import json
import uuid
from dataclasses import dataclass, field

MCP_SERVER = "crosstalk"


@dataclass(frozen=True)
class Answer:
    """What the model says: a final `text`, or a call of `tool` (wire name) with `args`."""

    text: str = ""
    tool: str = ""
    args: dict = field(default_factory=dict)
    namespace: str = ""  # Responses API: the namespace a function was offered in


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def sse(event: str | None, data: dict) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def text_of(content) -> str:
    """Text inside a content value: a string, a list of blocks, or a nested result."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "content", "output", "response"):
            if key in content:
                return text_of(content[key])
        return json.dumps(content)
    return ""


def missing(tool: str, offered) -> Answer:
    return Answer(text=f"Fake model: tool {tool} is not offered (offered: {sorted(offered)})")


def pick(candidates: list[str], offered) -> str | None:
    return next((name for name in candidates if name in offered), None)
