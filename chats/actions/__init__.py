"""Every state change of chats, turns and entries (docs/rules.md: check_* then do_*),
by domain. Callers import from here (`from chats import actions; actions.x`).

- chat: create, update, stop a chat; its agent key and session
- lifecycle: delete one chat, leaving the row its messages name
- turns: the person's prompt, requested turns, claim and start; the writes of a
  turn's end (done, failed, background work over), which only agents.turns calls
- entries: what a conversation shows (notices, answers, a peer message's two sides)
- leases: a running turn's lease, renewed by its worker
- attached: turns opened by the hooks of a session the person runs themselves
- hosted: a hosted turn's key, its answer as it grows, what its process reported
"""

from chats.actions.attached import (
    ATTACHED,
    attached_turn,
    do_cancel_runner_requests,
    do_hook_prompt,
    do_issue_attachment_key,
    do_mark_seen,
    do_revoke_attachment_key,
)
from chats.actions.chat import (
    SESSION_ID_RULE,
    check_chat_template,
    check_create_chat,
    check_update_chat,
    do_create_chat,
    do_delete_chats,
    do_note_person_wrote,
    do_rotate_agent_key,
    do_set_session_id,
    do_stop_chat,
    do_update_chat,
    name_taken,
)
from chats.actions.entries import (
    do_add_entry,
    do_add_message_entries,
    do_link_answer_entry,
    message_entries,
)
from chats.actions.hosted import do_issue_turn_key, do_record_run, do_set_entry_text
from chats.actions.leases import (
    do_renew_leases,
    lease_end,
    lease_expired,
    lease_seconds,
)
from chats.actions.lifecycle import do_delete_chat
from chats.actions.turns import (
    check_has_text,
    check_prompt,
    claim_next_turn,
    do_mark_background_done,
    do_mark_turn_done,
    do_mark_turn_failed,
    do_outside_prompt,
    do_prompt,
    do_set_turn_input,
    do_start_turn,
    end_turn,
    put_answer,
    request_turn,
    requested_for_messages,
    running_turn,
    turn_is_running,
)

__all__ = [
    "ATTACHED",
    "SESSION_ID_RULE",
    "attached_turn",
    "check_chat_template",
    "check_create_chat",
    "check_has_text",
    "check_prompt",
    "check_update_chat",
    "claim_next_turn",
    "do_add_entry",
    "do_add_message_entries",
    "message_entries",
    "do_cancel_runner_requests",
    "do_create_chat",
    "do_delete_chat",
    "do_delete_chats",
    "do_hook_prompt",
    "do_issue_attachment_key",
    "do_mark_seen",
    "do_revoke_attachment_key",
    "do_issue_turn_key",
    "do_link_answer_entry",
    "do_mark_background_done",
    "do_mark_turn_done",
    "do_mark_turn_failed",
    "do_note_person_wrote",
    "do_outside_prompt",
    "do_prompt",
    "do_record_run",
    "do_renew_leases",
    "do_rotate_agent_key",
    "do_set_entry_text",
    "do_set_session_id",
    "do_set_turn_input",
    "do_start_turn",
    "do_stop_chat",
    "do_update_chat",
    "end_turn",
    "lease_end",
    "lease_expired",
    "lease_seconds",
    "name_taken",
    "put_answer",
    "request_turn",
    "requested_for_messages",
    "running_turn",
    "turn_is_running",
]
