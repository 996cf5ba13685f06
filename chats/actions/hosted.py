"""The state changes of a hosted turn (a CLI the runner starts): its key, its
answer as it grows, what its process reported."""

from accounts import keys
from chats.models import Entry, Turn
from kernel import events


def do_set_entry_text(entry: Entry, *, text: str) -> None:
    """A CLI's answer as it grows: one entry, rewritten (the runner coalesces deltas)."""
    entry.text = text
    entry.save(update_fields=["text"])
    events.publish(entry.chat.user_id, "entry", chat=entry.chat_id)


def do_issue_turn_key(turn: Turn) -> str:
    """A key that acts as the chat while this turn runs, for a hosted CLI (shown to it only)."""
    secret = keys.new_secret("cak")
    turn.key_digest = keys.digest(secret)
    turn.save(update_fields=["key_digest"])
    return secret


def do_record_run(
    turn: Turn, *, exit_code: int | None, duration_seconds: float, cost_usd: float | None
) -> None:
    """What the agent's process reported, kept on the turn whichever way it ended."""
    turn.exit_code, turn.duration_seconds, turn.cost_usd = exit_code, duration_seconds, cost_usd
    turn.save(update_fields=["exit_code", "duration_seconds", "cost_usd"])
