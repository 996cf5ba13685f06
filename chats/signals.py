"""What chats tells the apps above it, which it may not import (docs/rules.md's arrows)."""

from django.dispatch import Signal

# Sent inside the transaction that ends a turn as done, with turn, chat and final_text:
# a receiver's rows commit (or roll back) with the turn's end.
turn_finished = Signal()
# Sent inside the transaction that ends a turn as failed, with turn, chat and error.
turn_failed = Signal()
