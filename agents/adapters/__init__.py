"""One adapter per agent kind; the runner asks for the chat's."""

from agents.adapters.base import Adapter, TurnContext, TurnResult, TurnStopped
from agents.adapters.claude_code import ClaudeCodeAgent
from agents.adapters.codex import CodexAgent
from agents.adapters.command import CommandAgent
from agents.adapters.demo import DemoAgent
from agents.adapters.gemini import GeminiAgent
from agents.errors import AgentUnavailable
from chats.models import Chat

__all__ = [
    "Adapter",
    "TurnContext",
    "TurnResult",
    "TurnStopped",
    "adapter_for",
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
