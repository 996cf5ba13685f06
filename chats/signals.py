"""What chats tells the apps above it; peers listens (arrows point down only)."""

from django.dispatch import Signal

# chat: the chat the person stopped; sent inside the stopping transaction.
chat_stopped = Signal()
# chat, enabled, by_chat: its agent-to-agent switch changed; inside the transaction.
peers_switched = Signal()
# chat: its turn failed (the agent is gone); sent inside the failing transaction.
chat_failed = Signal()
