"""What a hook does, event by event; every write is chats.actions' or peers.actions',
and a turn's end is agents.turns'.

A runner's turn is started and ended by the runner; a session the person runs
in their own terminal has its turn opened at its prompt and ended as it
finishes, here. With the switch off the status, last asked and last answered
are still kept, and the agent gets nothing (no context, no block)."""

from agents import turns
from agents.hooks import native_messaging
from agents.hooks.clis import Cli
from agents.hooks.payloads import Event, HookPayload
from chats import actions as chat_actions
from chats import runners
from chats.models import Chat, Entry
from peers.actions import (
    deliver_as_finished,
    deliver_between_steps,
    do_attached_prompt,
    has_notices,
    take_notices,
)
from peers.actions.notices import frame_notices
from peers.framing import frame_all
from peers.models import PeerMessage
from peers.selectors import anything_for_agent, waiting_for_delivery

PROMPT_LINE = (
    "You can reach the other agent chats of your person through the `crosstalk` MCP "
    "server: ListChats shows who is reachable, ReadChat reads a chat's latest entries, "
    "MessageChat sends one a message. Messages from them arrive as <peer-message> blocks."
)
# A prompt that is one of our own blocks (Gemini sends an AfterAgent reason as a new
# prompt) is not the person writing.
OWN_BLOCK = "<peer-message "


def handle(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    event = cli.event(payload.hook_event_name)
    handler = HANDLERS.get(event)
    return handler(cli, chat, payload) if handler else {}


def session_start(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    chat_actions.do_set_session_id(chat, session_id=payload.session_id)
    if not chat.takes_part:
        return {}  # it sees no tools: no line about them either
    return cli.context(payload.hook_event_name, PROMPT_LINE)


def prompt(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    """Only an attached session's prompt is the person writing: a hosted chat's
    prompts are the ones Crosstalk's runner gave it, whoever calls with its key."""
    text = payload.person_prompt
    if text.startswith(OWN_BLOCK) or not runners.is_attached(chat):
        return {}
    delivered = do_attached_prompt(chat, prompt=text, session_id=payload.session_id)
    context = with_notices(chat, frame_all(delivered)) if chat.peers else ""
    return cli.context(payload.hook_event_name, context) if context else {}


def after_step(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    if not chat.peers or not anything_for_agent(chat):
        return {}
    delivered = deliver_between_steps(chat)
    context = with_notices(chat, frame_all(delivered))
    return cli.context(payload.hook_event_name, context) if context else {}


def with_notices(chat: Chat, framed: str) -> str:
    """What the agent is told at this step: the later turns of the messages it sent
    (peers.actions.notices), then the messages it receives."""
    notices = frame_notices(take_notices(chat)) if has_notices(chat) else ""
    return "\n\n".join(part for part in (notices, framed) if part)


def finishing(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    if chat.peers and not payload.stop_hook_active and has_pending(chat):
        delivered = deliver_as_finished(chat)
        if delivered:
            mark_kept_going(chat, len(delivered))
            return cli.block(with_notices(chat, frame_all(delivered)))
    end_attached_turn(chat, final_text=payload.final_text)
    return {}


def has_pending(chat: Chat) -> bool:
    """Most steps find nothing: one look, without the turn lookup, transaction and row
    locks of taking (a message sent just after it goes in at the next step or Stop)."""
    return waiting_for_delivery(chat).filter(state=PeerMessage.State.PENDING).exists()


def mark_kept_going(chat: Chat, count: int) -> None:
    """A runner's turn shows its answer as it grows: what it said before the block
    and what it says after are two answers, with this note between them."""
    turn = chat_actions.running_turn(chat)
    if turn is None or turn.worker.startswith(chat_actions.ATTACHED):
        return  # an attached session's answer is its last message, taken at its end
    words = "a message" if count == 1 else f"{count} messages"
    text = f"Kept going with {words} that came as it was finishing."
    chat_actions.do_add_entry(chat, kind=Entry.Kind.NOTICE, text=text, turn=turn)


def session_end(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    end_attached_turn(chat, final_text="")
    return {}


def end_attached_turn(chat: Chat, *, final_text: str) -> None:
    """A runner's turn is the runner's to end; an attached one ends as its agent finishes."""
    turn = chat_actions.attached_turn(chat)
    if turn is not None:
        turns.finish(turn, final_text=final_text)


def before_tool(cli: Cli, chat: Chat, payload: HookPayload) -> dict:
    """Claude Code's own SendMessage and ListAgents: Crosstalk answers them instead."""
    tool = getattr(payload, "tool_name", None)
    if tool not in native_messaging.TOOLS:
        return {}
    text = native_messaging.answer(chat, tool, getattr(payload, "tool_input", None) or {})
    return cli.deny(payload.hook_event_name, text)


HANDLERS = {
    Event.BEFORE_TOOL: before_tool,
    Event.SESSION_START: session_start,
    Event.PROMPT: prompt,
    Event.AFTER_STEP: after_step,
    Event.FINISHING: finishing,
    Event.SESSION_END: session_end,
}
