"""One adapter per agent kind; the runner asks for the chat's."""

from agents.adapters.base import (
    Adapter,
    AgentFailed,
    AgentUnavailable,
    NotSetUpAdapter,
    TurnContext,
    TurnResult,
    TurnStopped,
)
from agents.adapters.demo import DemoAgent
from chats.models import Chat

__all__ = [
    "Adapter",
    "AgentFailed",
    "AgentUnavailable",
    "TurnContext",
    "TurnResult",
    "TurnStopped",
    "adapter_for",
]

# Agent kind → adapter class. The command-line agents join in a later issue.
ADAPTERS: dict[str, type[Adapter]] = {Chat.Agent.DEMO: DemoAgent}


def adapter_for(chat: Chat) -> Adapter:
    adapter = ADAPTERS.get(chat.agent)
    return adapter() if adapter is not None else NotSetUpAdapter(chat.agent)
