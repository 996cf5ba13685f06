"""One adapter per agent kind; the runner asks for the chat's."""

from agents.adapters.base import (
    Adapter,
    AgentFailed,
    AgentUnavailable,
    TurnContext,
    TurnResult,
    TurnStopped,
)
from agents.adapters.claude_code import ClaudeCodeAgent
from agents.adapters.codex import CodexAgent
from agents.adapters.command import CommandAgent
from agents.adapters.demo import DemoAgent
from agents.adapters.gemini import GeminiAgent
from chats import agent_kinds
from chats.models import Chat

__all__ = [
    "Adapter",
    "AgentFailed",
    "AgentUnavailable",
    "TurnContext",
    "TurnResult",
    "TurnStopped",
    "adapter_for",
    "declare_what_each_kind_takes",
]

# Agent kind → adapter class.
ADAPTERS: dict[str, type[Adapter]] = {
    Chat.Agent.DEMO: DemoAgent,
    Chat.Agent.CLAUDE_CODE: ClaudeCodeAgent,
    Chat.Agent.CODEX: CodexAgent,
    Chat.Agent.GEMINI: GeminiAgent,
    Chat.Agent.COMMAND: CommandAgent,
}


def adapter_for(chat: Chat) -> Adapter:
    """AgentUnavailable for a kind with no adapter (a row written outside Crosstalk):
    the runner fails the turn with that sentence and holds its messages."""
    adapter = ADAPTERS.get(chat.agent)
    if adapter is None:
        raise AgentUnavailable(f"Crosstalk has no runner for agent kind {chat.agent!r}")
    return adapter()


def declare_what_each_kind_takes() -> None:
    """peers routes by chats.agent_kinds.takes(kind); each adapter's `takes` is the source.

    Each also lists its permission modes (the ones chats accepts) and says, when a chat
    is created, whether one of its kind could run here."""
    for kind, adapter in ADAPTERS.items():
        agent_kinds.declare(kind, adapter.takes)
        agent_kinds.declare_modes(kind, adapter.permission_modes, adapter.default_permission_mode)
        if hasattr(adapter, "why_not_ready"):
            agent_kinds.declare_check(kind, adapter.why_not_ready)
