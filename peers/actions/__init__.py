"""Every state change of peer messaging, by domain. Callers import from here.

- send: the checks in docs/rules.md's order, then the one write of a message
- deliver: where a sent message goes next (steps, finish, turn, inbox, waiting call)
- answers: the final-text rule
- give_back: what a failed or stopped turn took and did not answer goes back
- cancel, connect, list_read: the person's cancel and connect, the agent's calls
- chat_state: the switch and a stop (each with its peers rule)
- attached: an attached session's prompt
- (a turn's end is agents.turns': it calls answer_from_final_text, send_on_queue,
  give_back_failed, hold_for_person and fail_delivery, in its order)
- limits: the counters a send is held to, and changing the limits
- counters: the per-minute rows those counters sum, and their pruning
- approval: the person approves or denies a message to an `ask` chat
- notices: the sender hears every later turn of its message (tell_sender, take_notices)
- record: the activity log and the live push of a message
- watch, notices: notifyWhenIdle's subscriptions and the one notice each ends with
"""

from peers.actions.answers import answer_from_final_text
from peers.actions.approval import check_approve_message, check_deny_message
from peers.actions.attached import do_attached_prompt
from peers.actions.cancel import check_cancel_message, no_message
from peers.actions.chat_state import (
    check_delete_chat,
    check_stop_chat,
    check_update_chat,
    do_set_peers,
)
from peers.actions.connect import check_connect_chats
from peers.actions.counters import do_prune_counts
from peers.actions.deliver import (
    check_mark_seen,
    deliver_as_finished,
    deliver_between_steps,
    end_wait,
    fail_delivery,
    hold_for_person,
    send_on_queue,
    take_awaited_answer,
    take_for_tool_result,
    take_for_turn,
)
from peers.actions.give_back import give_back_failed, give_back_stopped
from peers.actions.idle_notices import check_watch, do_expire_watches, notify_watchers
from peers.actions.limits import do_set_limits
from peers.actions.list_read import (
    check_list_chats,
    check_peers_on,
    check_read_chat,
    check_takes_part,
)
from peers.actions.locking import lock_account
from peers.actions.notices import has_notices, notices_for_turn, take_notices, tell_sender
from peers.actions.prompts import check_prompt_or_queue
from peers.actions.record import (
    input_refusals_recorded,
    publish_message,
    record,
    record_refusal,
)
from peers.actions.send import Outgoing, check_send_as_person, check_send_message, send

__all__ = [
    "Outgoing",
    "answer_from_final_text",
    "check_approve_message",
    "check_cancel_message",
    "check_deny_message",
    "check_connect_chats",
    "check_list_chats",
    "check_mark_seen",
    "check_peers_on",
    "check_prompt_or_queue",
    "check_read_chat",
    "check_send_as_person",
    "check_send_message",
    "check_takes_part",
    "check_delete_chat",
    "check_watch",
    "do_expire_watches",
    "notify_watchers",
    "check_stop_chat",
    "check_update_chat",
    "deliver_as_finished",
    "deliver_between_steps",
    "do_attached_prompt",
    "do_prune_counts",
    "do_set_limits",
    "do_set_peers",
    "end_wait",
    "fail_delivery",
    "give_back_failed",
    "give_back_stopped",
    "has_notices",
    "hold_for_person",
    "input_refusals_recorded",
    "lock_account",
    "no_message",
    "notices_for_turn",
    "publish_message",
    "record",
    "record_refusal",
    "send",
    "send_on_queue",
    "take_awaited_answer",
    "take_for_tool_result",
    "take_for_turn",
    "take_notices",
    "tell_sender",
]
