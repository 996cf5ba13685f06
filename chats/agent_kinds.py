"""What a running turn of each agent kind can take, declared by its adapter.

peers reads it (`takes(kind)`) to route a message to a running chat without
importing agents: each adapter declares its set once and agents' AppConfig
registers it here at start-up. An undeclared kind takes messages only as its
next turn's prompt. Adapters also declare a check that a new chat of their
kind could run here (its folder exists, its CLI is found)."""

from collections.abc import Callable

BETWEEN_STEPS = "between_steps"  # after its current step (a PostToolUse / AfterTool hook)
AS_FINISHED = "as_finished"  # as it is about to finish (a Stop / AfterAgent hook)
INBOX = "inbox"  # only when it polls its inbox and marks messages seen

_declared: dict[str, frozenset[str]] = {}
# kind → check(folder=, command=) answering "field: sentence" when a chat of it could not run.
_checks: dict[str, Callable[..., str | None]] = {}


def declare(kind: str, takes: frozenset[str], *, check: Callable[..., str | None] | None = None):
    _declared[kind] = frozenset(takes)
    if check is not None:
        _checks[kind] = check


def why_not_ready(kind: str, *, folder: str, command: str) -> str | None:
    """Why a new chat of this kind could not run here ("folder: …"), or None."""
    check = _checks.get(kind)
    return check(folder=folder, command=command) if check else None


def takes(kind: str) -> frozenset[str]:
    """The ways a running turn of this kind takes a message; empty: behind its turn."""
    return _declared.get(kind, frozenset())


def takes_between_steps(kind: str) -> bool:
    return BETWEEN_STEPS in takes(kind)
