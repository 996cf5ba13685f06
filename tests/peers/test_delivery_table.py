# ruff: noqa: E501
"""docs/rules.md's delivery table, pinned row by row: the state, reason and path a
message gets from its recipient's state and kind, and the words people see."""

import pytest

from chats.models import Chat
from peers import delivery_table
from peers.models import PeerMessage

State, Reason, Path = PeerMessage.State, PeerMessage.Reason, PeerMessage.Path

ROWS = [
    # (status, agent, state, reason, path, how fast, turn requested[, folder]); a
    # folder unless given ("" for none)
    ("running", "demo", State.PENDING, Reason.NEXT_STEP, Path.BETWEEN_STEPS, "after its current step", ""),
    ("running", "claude-code", State.PENDING, Reason.NEXT_STEP, Path.BETWEEN_STEPS, "after its current step", ""),
    ("running", "codex", State.PENDING, Reason.NEXT_STEP, Path.BETWEEN_STEPS, "after its current step", ""),
    ("running", "gemini", State.PENDING, Reason.NEXT_STEP, Path.BETWEEN_STEPS, "after its current step", ""),
    ("running", "command", State.QUEUED, Reason.BEHIND_TURN, Path.TURN_PROMPT, "when its current turn ends", "send_on"),
    ("idle", "demo", State.QUEUED, Reason.WAKING, Path.TURN_PROMPT, "wakes it now", "wake"),
    ("idle", "command", State.QUEUED, Reason.WAKING, Path.TURN_PROMPT, "wakes it now", "wake"),
    ("idle", "claude-code", State.QUEUED, Reason.WAKING, Path.TURN_PROMPT, "wakes it now", "wake"),
    # No folder: a session the person runs and attached; nothing to wake, its hooks take it.
    ("idle", "claude-code", State.QUEUED, Reason.FOR_ITS_SESSION, Path.TURN_PROMPT, "when its session next runs", "", ""),
    ("idle", "codex", State.QUEUED, Reason.FOR_ITS_SESSION, Path.TURN_PROMPT, "when its session next runs", "", ""),
    ("idle", "gemini", State.QUEUED, Reason.FOR_ITS_SESSION, Path.TURN_PROMPT, "when its session next runs", "", ""),
    ("idle", "command", State.QUEUED, Reason.WAKING, Path.TURN_PROMPT, "wakes it now", "wake", ""),
    ("waiting", "demo", State.QUEUED, Reason.WITH_BACKGROUND_WORK, Path.TURN_PROMPT, "when its background work ends", ""),
    ("stopped", "demo", State.QUEUED, Reason.HELD, "held", "held until you write to it", ""),
    ("failed", "codex", State.QUEUED, Reason.HELD, "held", "held until you write to it", ""),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS)
def test_it_routes_by_the_recipients_state_and_kind(row):
    status, agent, state, reason, path, words, turn, *folder = row
    folder = folder[0] if folder else "/srv/repo"
    route = delivery_table.route_for(Chat(status=status, agent=agent, folder=folder))
    assert (route.state, route.reason, route.path, route.words, route.turn) == (
        state,
        reason,
        path,
        words,
        turn,
    )


def test_it_an_awaited_answer_goes_to_the_waiting_call_whatever_the_state():
    for status in Chat.Status.values:
        route = delivery_table.route_for(Chat(status=status, agent="demo"), awaited=True)
        assert (route.state, route.reason, route.path) == (
            State.PENDING,
            Reason.AWAITED,
            Path.WAITING_CALL,
        )


def test_it_an_answer_to_the_person_is_delivered_to_them():
    route = delivery_table.route_for(None)
    assert (route.state, route.path, route.words) == (State.DELIVERED, "", "to you")


@pytest.mark.parametrize(
    ("fields", "words", "detail"),
    [
        ({"state": "pending", "reason": "next_step"}, "Pending — its next step takes it", "next_step"),
        ({"state": "pending", "reason": "awaited"}, "Pending — its sender is waiting for it", "waiting_call"),
        ({"state": "queued", "reason": "waking"}, "Queued — waking it", "waking"),
        ({"state": "queued", "reason": "for_its_session"}, "Queued — waits for its session to run", "for_its_session"),
        ({"state": "queued", "reason": "held_until_you_write"}, "Queued — held until you write", "held_until_you_write"),
        ({"state": "delivered", "path": "between_steps"}, "Delivered — between steps", "between_steps"),
        ({"state": "delivered", "path": "waiting_call"}, "Delivered — as the answer a waiting call took", "waiting_call"),
        ({"state": "delivered", "path": "turn_prompt"}, "Delivered — as a turn's prompt", "turn_prompt"),
        ({"state": "delivered", "path": ""}, "Delivered — to you", ""),
        ({"state": "cancelled", "reason": "removed"}, "Cancelled — removed from the queue", "removed"),
        ({"state": "cancelled", "reason": ""}, "Cancelled — before it arrived", ""),
        ({"state": "not_delivered", "reason": "agent_unavailable", "note": "no claude here"}, "Not delivered — no claude here", "no claude here"),
    ],
)  # fmt: skip
def test_it_words_every_state_the_same_everywhere(fields, words, detail):
    message = PeerMessage(**fields)
    assert delivery_table.words(message) == words
    assert message.detail == detail
