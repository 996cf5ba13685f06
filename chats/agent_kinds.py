"""What chats knows of each agent kind, as data: what a running turn of it can take,
whether Crosstalk can run it without a working folder, its permission modes, and the
program it runs. chats routes and validates by this table; the runner's adapters
(agents, above) read their own attributes from it, so it is the one source of truth.
A kind missing from it takes messages only between turns and no permission mode."""

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from chats import folders
from chats.models import Chat


@dataclass(frozen=True, slots=True)
class Takes:
    # After each step of a running turn (PostToolUse / AfterTool hooks, demo steps).
    between_steps: bool = False
    # Whether Crosstalk can start a turn of a chat with no working folder. A Claude
    # Code, Codex or Gemini chat without one is a session the person runs and
    # attaches themselves: nothing can wake it, its own hooks take its messages.
    runs_without_folder: bool = True


@dataclass(frozen=True, slots=True)
class Kind:
    takes: Takes = Takes()
    # The permission modes a chat of this kind may take, and the one blank means.
    permission_modes: tuple[str, ...] = ()
    default_mode: str = ""
    # The modes in which its agent acts without asking anyone (the permissive class).
    bypass_modes: tuple[str, ...] = ()
    # The CLI it runs: found at $bin_variable, else on PATH ("": none, or see command_line).
    program: str = ""
    bin_variable: str = ""
    # Its program is the first word of the chat's own command line.
    command_line: bool = False


BETWEEN_TURNS_ONLY = Takes()
CLI_TAKES = Takes(between_steps=True, runs_without_folder=False)

KINDS: dict[str, Kind] = {
    # Its steps behave like Claude Code's PostToolUse and Stop hooks.
    Chat.Agent.DEMO: Kind(takes=Takes(between_steps=True)),
    Chat.Agent.CLAUDE_CODE: Kind(
        CLI_TAKES, ("default", "acceptEdits", "plan", "bypassPermissions"), "default",
        ("bypassPermissions",), program="claude", bin_variable="CLAUDE_BIN",
    ),
    # Its sandbox: headless, approvals are off and the sandbox is the limit.
    Chat.Agent.CODEX: Kind(
        CLI_TAKES, ("read-only", "workspace-write", "danger-full-access"), "workspace-write",
        ("danger-full-access", "never"), program="codex", bin_variable="CODEX_BIN",
    ),
    # Its approval mode.
    Chat.Agent.GEMINI: Kind(
        CLI_TAKES, ("default", "auto_edit", "yolo", "plan"), "default",
        ("yolo",), program="gemini", bin_variable="GEMINI_BIN",
    ),
    # No hooks: a message sent while it runs queues behind the turn.
    Chat.Agent.COMMAND: Kind(command_line=True),
}  # fmt: skip
UNKNOWN = Kind()


def of(kind: str) -> Kind:
    return KINDS.get(kind, UNKNOWN)


def takes(kind: str) -> Takes:
    return of(kind).takes


def can_be_woken(agent: str, folder: str) -> bool:
    """Whether a turn can be started for a chat of this kind and folder (a wake)."""
    return bool(folder) or takes(agent).runs_without_folder


def for_its_session(chat) -> bool:
    """A chat whose agent runs in the person's own terminal: nothing here can start it,
    so a prompt to it is queued for that session (peers.actions.prompts)."""
    return not can_be_woken(chat.agent, chat.folder)


def takes_attached_session(kind: str) -> bool:
    """A kind whose chat without a folder is a session the person runs and attaches."""
    return not takes(kind).runs_without_folder


# Could a new chat of this kind run here ------------------------------------------


def find_program(program: str, variable: str) -> str | None:
    """The CLI at $VARIABLE, else on PATH; None when neither has it."""
    configured = os.environ.get(variable, "").strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which(program)


def program_not_found(kind: Kind) -> str:
    where = os.environ.get(kind.bin_variable, "").strip()
    if where:
        return f"{kind.bin_variable}={where} is not an executable file"
    return f"`{kind.program}` was not found on PATH (set {kind.bin_variable} to its path)"


def command_program(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return words[0] if words else ""


def program_found(command: str, folder: str) -> bool:
    """Its first word names an executable: on PATH, or a path (from its working folder)."""
    program = command_program(command)
    if not program:
        return False
    if "/" not in program:
        return shutil.which(program) is not None
    path = Path(folder or ".") / program
    return path.is_file() and os.access(path, os.X_OK)


def why_not_ready(agent: str, *, folder: str, command: str) -> str | None:
    """Why a new chat of this kind could not run here (no folder, no CLI), or None:
    "field: sentence", so a form shows it by the field. A CLI chat without a folder is a
    session the person runs and attaches themselves: nothing to check."""
    kind = of(agent)
    if kind.command_line:
        return why_command_not_ready(folder=folder, command=command)
    if not kind.program or not folder:
        return None
    if (problem := folders.why_missing(folder)) is not None:
        return f"folder: {problem}."
    if find_program(kind.program, kind.bin_variable) is None:
        return f"agent: {program_not_found(kind)}."
    return None


def why_command_not_ready(*, folder: str, command: str) -> str | None:
    if folder and (problem := folders.why_missing(folder)) is not None:
        return f"folder: {problem}."
    if command and not program_found(command, folder):
        name = command_program(command)
        return f"command: `{name}` was not found on PATH or in the working folder."
    return None


# Permission modes -------------------------------------------------------------------


def permission_modes(kind: str) -> tuple[str, ...]:
    return of(kind).permission_modes


def default_mode(kind: str) -> str:
    return of(kind).default_mode


def bypasses_approvals(kind: str, mode: str) -> bool:
    """Does a chat of this kind, in this mode, act without asking anyone? (Claude Code
    `bypassPermissions`, Codex `danger-full-access` or approval `never`, Gemini `yolo`.)"""
    return (mode or default_mode(kind)) in of(kind).bypass_modes


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
        f"{label_of(kind)}: {', '.join(spec.permission_modes)}"
        for kind, spec in KINDS.items()
        if spec.permission_modes
    ]
    return " · ".join(parts)
