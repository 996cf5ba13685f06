"""Every state change of origins, by domain (docs/rules.md: check_* then do_*). Callers
import from here.

- receive: a request from outside starts or continues its thread's chat and queues a turn
- answers: the answer queue (a turn's final text going back out, retried with back-off)
- configure: the person adds, edits, disables and deletes origins
- automation: chats started by scripts, MCP and REST (`origin: "automation"`)
- a2a_tasks: the A2A tasks kept for the SDK
- chat_gone: a deleted chat's outside thread forgotten
- resend: the person sends a failed answer again
"""

from origins.actions.a2a_tasks import do_delete_a2a_task, do_save_a2a_task
from origins.actions.answers import (
    FAILED_TURN,
    note_turn_finished,
    run_reply_loop,
    send_due_replies,
    send_due_replies_async,
)
from origins.actions.automation import check_start_automation, start_from_chat_faces
from origins.actions.chat_gone import do_forget_chat
from origins.actions.configure import (
    check_change_origin,
    check_create_origin,
    check_update_origin,
    do_delete_origin,
    do_regenerate_secret,
    do_set_enabled,
)
from origins.actions.receive import Received, receive_from_origin
from origins.actions.resend import check_resend_answer
from origins.inputs import Inbound

__all__ = [
    "FAILED_TURN",
    "Inbound",
    "Received",
    "check_change_origin",
    "check_create_origin",
    "check_resend_answer",
    "check_start_automation",
    "check_update_origin",
    "do_delete_a2a_task",
    "do_delete_origin",
    "do_forget_chat",
    "do_regenerate_secret",
    "do_save_a2a_task",
    "do_set_enabled",
    "note_turn_finished",
    "receive_from_origin",
    "run_reply_loop",
    "send_due_replies",
    "send_due_replies_async",
    "start_from_chat_faces",
]
