"""What the fake model answers next, decided from the conversation alone (no state).

User-side text carries directives: `[[bash COMMAND]]`, `[[call TOOL {json args}]]`,
`[[say TEXT]]`. The latest user-side text holding any directive is the script; the
number of tool calls the model made after it says which directive comes next.
"""

import json
import re
from dataclasses import dataclass, field

_START = re.compile(r"\[\[(bash|call|say)\s")
# ToolSearch only loads deferred tools (Claude Code); it is not a step of the script.
LOADER_TOOLS = frozenset({"ToolSearch"})


@dataclass(frozen=True)
class Directive:
    kind: str  # "bash", "call" or "say"
    text: str = ""  # the command for bash, the sentence for say, the tool for call
    args: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Event:
    """One item of a conversation, flattened: user-side text, a tool call or a tool result."""

    kind: str  # "text" (user), "context" (system/hook text), "call" or "result"
    text: str = ""
    name: str = ""


@dataclass(frozen=True)
class Step:
    """The next answer: a tool directive to call, or a final text."""

    directive: Directive | None = None
    text: str = ""


def parse_directives(text: str) -> list[Directive]:
    """Directives in order. Several may share a line; each ends at the last `]]` before
    the next directive, so `[[bash [[ -f x ]] && echo y]]` keeps its inner brackets."""
    found = []
    for line in text.splitlines():
        starts = [m.start() for m in _START.finditer(line)] + [len(line)]
        for begin, end in zip(starts, starts[1:], strict=False):
            directive = _parse_one(line[begin:end])
            if directive:
                found.append(directive)
    return found


def _parse_one(segment: str) -> Directive | None:
    close = segment.rfind("]]")
    if close < 0:
        return None
    kind, _, body = segment[2:close].partition(" ")
    body = body.strip()
    if kind != "call":
        return Directive(kind, body)
    tool, _, raw_args = body.partition(" ")
    try:
        args = json.loads(raw_args) if raw_args.strip() else {}
    except json.JSONDecodeError:
        args = _escaped_json(raw_args)
        if args is None:
            return None
    return Directive("call", tool, args if isinstance(args, dict) else {})


def _escaped_json(raw: str):
    """Args quoted inside a JSON string (a tool result a CLI passes on as JSON, such as
    Claude Code's structured content): `{\\"to\\": …}`, read as a model would."""
    try:
        return json.loads(json.loads(f'"{raw.strip()}"'))
    except json.JSONDecodeError:
        return None


def next_step(events: list[Event]) -> Step:
    """The latest directive-bearing user-side text and the tool calls made after it."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.kind == "call":
            continue
        directives = parse_directives(event.text)
        if directives:
            made = sum(
                1 for e in events[index + 1 :] if e.kind == "call" and e.name not in LOADER_TOOLS
            )
            return _step_after(directives, made)
    return Step(text=echo_text(events))


def _step_after(directives: list[Directive], made: int) -> Step:
    tools = 0
    for directive in directives:
        if directive.kind == "say":
            if tools == made:
                return Step(text=directive.text)
            continue
        if tools == made:
            return Step(directive=directive)
        tools += 1
    says = [d.text for d in directives if d.kind == "say"]
    return Step(text=says[-1] if says else "done")


def echo_text(events: list[Event]) -> str:
    """The answer to a conversation that scripts nothing."""
    return f"Fake model saw: {first_line(last_user_text(events))}"


def last_user_text(events: list[Event]) -> str:
    texts = [
        e.text
        for e in events
        if e.kind == "text" and e.text.strip() and not e.text.startswith("<system-reminder>")
    ]
    return texts[-1] if texts else ""


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""
