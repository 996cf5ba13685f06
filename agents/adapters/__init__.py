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

# Agent kind → adapter class. The command-line agents join in a later issue.
ADAPTERS: dict[str, type[Adapter]] = {Chat.Agent.DEMO: DemoAgent}


def adapter_for(chat: Chat) -> Adapter:
    adapter = ADAPTERS.get(chat.agent)
    return adapter() if adapter is not None else NotSetUpAdapter(chat.agent)


def declare_what_each_kind_takes() -> None:
    for kind in Chat.Agent.values:
        adapter = ADAPTERS.get(kind)
        if adapter is not None:
            agent_kinds.declare(kind, adapter.takes)
        elif kind != Chat.Agent.COMMAND:
            # Attached sessions of the hook-capable CLIs take messages through hooks.
            agent_kinds.declare(kind, NotSetUpAdapter.takes)
