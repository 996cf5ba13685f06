"""What a running turn of each agent kind can take while it runs.

The runner's adapters (agents, above) declare it when their app loads; peers reads
it through `takes()` to pick a delivery path. A kind nobody declared takes messages
only between turns."""

from collections.abc import Callable
from dataclasses import dataclass

from chats.models import Chat


@dataclass(frozen=True, slots=True)
class Takes:
    # After each step of a running turn (PostToolUse / AfterTool hooks, demo steps).
    between_steps: bool = False
    # Whether Crosstalk can start a turn of a chat with no working folder. A Claude
    # Code, Codex or Gemini chat without one is a session the person runs and
    # attaches themselves: nothing can wake it, its own hooks take its messages.
    runs_without_folder: bool = True


BETWEEN_TURNS_ONLY = Takes()
_declared: dict[str, Takes] = {}


def declare(kind: str, takes: Takes) -> None:
    _declared[kind] = takes


def takes(kind: str) -> Takes:
    return _declared.get(kind, BETWEEN_TURNS_ONLY)


def can_be_woken(agent: str, folder: str) -> bool:
    """Whether a turn can be started for a chat of this kind and folder (a wake)."""
    return bool(folder) or takes(agent).runs_without_folder


# kind → check(folder=, command=): "field: sentence" when a new chat of it could not run here.
_checks: dict[str, Callable[..., str | None]] = {}


def declare_check(kind: str, check: Callable[..., str | None]) -> None:
    _checks[kind] = check


def why_not_ready(kind: str, *, folder: str, command: str) -> str | None:
    """Why a new chat of this kind could not run here (no folder, no CLI), or None."""
    check = _checks.get(kind)
    return check(folder=folder, command=command) if check else None


# kind → (its permission modes, the one a blank mode means). The adapters declare
# them; a kind with none takes no mode.
_modes: dict[str, tuple[tuple[str, ...], str]] = {}


def declare_modes(kind: str, modes: tuple[str, ...], default: str = "") -> None:
    _modes[kind] = (tuple(modes), default)


def permission_modes(kind: str) -> tuple[str, ...]:
    return _modes.get(kind, ((), ""))[0]


def default_mode(kind: str) -> str:
    return _modes.get(kind, ((), ""))[1]


def why_mode_refused(kind: str, mode: str) -> str | None:
    """Why a chat of this kind cannot take this permission mode ("permission_mode:
    sentence", naming the valid ones), or None; blank is always its default."""
    if not mode:
        return None
    modes, label = permission_modes(kind), label_of(kind)
    if not modes:
        return f"permission_mode: a {label} chat takes no permission mode; leave it blank."
    if mode not in modes:
        valid = ", ".join(modes)
        blank = default_mode(kind)
        return (
            f"permission_mode: a {label} chat's permission mode is one of {valid} (blank: {blank})."
        )
    return None


def label_of(kind: str) -> str:
    return dict(Chat.Agent.choices).get(kind, kind)


def modes_help() -> str:
    """The permission modes of every kind that has them, in one line (the form's help)."""
    parts = [
        f"{label_of(kind)}: {', '.join(modes)}"
        for kind, (modes, _default) in _modes.items()
        if modes
    ]
    return " · ".join(parts)
