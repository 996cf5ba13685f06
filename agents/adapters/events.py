"""What an adapter's parser reads out of one line of its CLI's event stream."""

import json
import re
from dataclasses import dataclass

# What text in the database cannot hold.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
SUMMARY_CHARS = 120
DETAIL_CHARS = 4000
# Arguments that say best what a call does, in the order they are looked for.
TELLING_ARGUMENTS = ("command", "file_path", "path", "pattern", "query", "url", "to", "prompt")


@dataclass(slots=True)
class Said:
    """Text of the agent's: a whole message, or (delta) the next piece of the current one."""

    text: str
    delta: bool = False


@dataclass(slots=True)
class ToolCall:
    name: str
    arguments: dict

    def summary(self) -> str:
        """The call in one short line: its name and its most telling argument."""
        return f"{self.name} · {argument_line(self.arguments)}".rstrip(" ·")

    def details(self) -> str:
        text = json.dumps(self.arguments, indent=2, ensure_ascii=False, default=str)
        return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


@dataclass(slots=True)
class ToolDone:
    """A step's result came back: the CLI is waiting on the model again."""


@dataclass(slots=True)
class Final:
    """The turn's final text, as the CLI reports it (Claude's `result`)."""

    text: str


@dataclass(slots=True)
class Session:
    session_id: str


@dataclass(slots=True)
class Failure:
    """The CLI's final event says the turn failed (an `is_error` result, `turn.failed`)."""

    message: str


@dataclass(slots=True)
class Trouble:
    """An error the CLI reported on the way, which it may recover from: shown as a note,
    and the reason should the turn end badly. `retrying`: the CLI is waiting for the
    model again (a reconnect), which is not progress. `note` False: no note of its own
    (its final event repeats it, and the turn's failure shows it)."""

    message: str
    retrying: bool = False
    note: bool = True


@dataclass(slots=True)
class ToolsMissing:
    """The CLI started without Crosstalk's tools (its MCP server did not connect)."""

    reason: str


@dataclass(slots=True)
class Cost:
    usd: float


@dataclass(slots=True)
class Notice:
    """Something the person should know that is not the agent's words (MCP not connected)."""

    text: str


Event = (
    Said | ToolCall | ToolDone | Final | Session | Failure | Trouble | ToolsMissing | Cost | Notice
)


def argument_line(arguments: dict) -> str:
    if not isinstance(arguments, dict) or not arguments:
        return ""
    value = next((arguments[k] for k in TELLING_ARGUMENTS if k in arguments), None)
    if value is None:
        value = next((v for v in arguments.values() if isinstance(v, str)), None)
    if value is None:
        value = json.dumps(arguments, ensure_ascii=False, default=str)
    return shorten(" ".join(str(value).split()))


def shorten(text: str, limit: int = SUMMARY_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_line(line: str) -> dict | None:
    """One line of a JSON event stream; anything else (a banner, a warning) is skipped.

    A NUL or a lone surrogate in its strings (escaped in the JSON) becomes U+FFFD:
    neither can be stored (PostgreSQL refuses NUL in text)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return printable_tree(data) if "\\u" in line else data


def printable(text: str) -> str:
    return UNSTORABLE.sub("\ufffd", text)


def printable_tree(value):
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {key: printable_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_tree(item) for item in value]
    return value
