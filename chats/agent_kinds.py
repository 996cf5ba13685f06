"""What a running turn of each agent kind can take while it runs.

The runner's adapters (agents, above) declare it when their app loads; peers reads
it through `takes()` to pick a delivery path. A kind nobody declared takes messages
only between turns."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Takes:
    # After each step of a running turn (PostToolUse / AfterTool hooks, demo steps).
    between_steps: bool = False
    # As a running turn is about to end (Stop / AfterAgent hooks): it keeps going.
    as_finished: bool = False


BETWEEN_TURNS_ONLY = Takes()
_declared: dict[str, Takes] = {}


def declare(kind: str, takes: Takes) -> None:
    _declared[kind] = takes


def takes(kind: str) -> Takes:
    return _declared.get(kind, BETWEEN_TURNS_ONLY)
