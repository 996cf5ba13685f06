"""Claude Code's own cross-session messaging, joined to the hub (a PreToolUse hook).

Claude Code 2.1.332 offers its model `ListAgents` and `SendMessage` beside Crosstalk's
tools. In a session Crosstalk configures, a `SendMessage` to one of the person's chats
(by its name, or its id) becomes a Crosstalk message to that chat: the same checks,
limits, states, cards and log as MessageChat. The native call is denied with
Crosstalk's result as the reason, which is what the model reads as the tool's answer.
A name that is no chat of the person is refused with the sentence pointing at
MessageChat; `ListAgents` is refused pointing at ListChats. (The attach config also
sets `crossSessionInbound: "refuse"`, so no native message reaches the session.)"""

import re

from chats.models import Chat
from chats.selectors import account_chats, well_formed_id
from kernel.refusals import Refusal
from peers import actions
from peers.mcp import text as words
from peers.serializers import sent_json, watch_json

SEND, LIST = "SendMessage", "ListAgents"
TOOLS = (SEND, LIST)
ROUTED = "Crosstalk routes messages between your person's chats in this session. "
LIST_AGENTS = (
    ROUTED + "ListAgents is off here: call mcp__crosstalk__ListChats to see the chats "
    "you can reach, and mcp__crosstalk__MessageChat to message one."
)
NO_SUCH_CHAT = (
    ROUTED + "{to} is not one of your person's chats, so nothing was sent. Call "
    "mcp__crosstalk__ListChats to see the chats you can reach, then "
    "mcp__crosstalk__MessageChat with the chat's id."
)
MALFORMED = ROUTED + "SendMessage needs `to` (a chat's name) and `message` (text)."
# "worker [3fa9c1]": ListAgents' address form; the ref means nothing to Crosstalk.
REF = re.compile(r"\s*\[[^\]]*\]\s*$")


def answer(chat: Chat, tool: str, args: dict) -> str:
    """The sentence the model reads instead of the native tool's result. With the switch
    off (or a chat started from outside) neither tool reaches anyone: it says why."""
    try:
        actions.check_takes_part(chat)
    except Refusal as refusal:
        return refused(refusal)
    if tool == LIST:
        return LIST_AGENTS
    to, message = args.get("to"), args.get("message", "")
    if not isinstance(to, str) or not isinstance(message, str) or not to.strip():
        return MALFORMED
    target = chat_called(chat, REF.sub("", to).strip())
    if target is None:
        return NO_SUCH_CHAT.format(to=to)
    try:
        return ROUTED + send(chat, target, message, args.get("notify_when_idle") is True)
    except Refusal as refusal:
        return refused(refusal)


def refused(refusal: Refusal) -> str:
    return f"{ROUTED}Crosstalk refused it ({refusal.code}): {refusal.message}"


def send(chat: Chat, target: Chat, message: str, notify: bool) -> str:
    if notify and not message.strip():
        return words.watching(watch_json(actions.check_watch(chat, to=target.pk)), target.name)
    sent = actions.check_send_message(chat, to=target.pk, text=message, notify_when_idle=notify)
    return words.sent(sent_json(sent), {target.pk: target.name}, waited=False)


def chat_called(chat: Chat, name: str) -> Chat | None:
    """The person's chat of that id, else of that name (unique in an account, whatever
    the case); another account's chats are never looked at."""
    if not name or "\x00" in name:
        return None
    chats = account_chats(chat.user)
    if well_formed_id(name) and (found := chats.filter(pk=name).first()) is not None:
        return found
    return chats.filter(name__iexact=name).first()
