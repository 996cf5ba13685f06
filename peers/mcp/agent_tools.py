"""The agent's tools (a chat's agent key): ListChats, ReadChat, MessageChat, ReadInbox.

Each is GET /api/v1/agent/chats, GET /api/v1/agent/chats/{id}, POST
/api/v1/agent/messages, and GET /api/v1/agent/inbox then POST /api/v1/agent/inbox/seen:
the same checks, the same bodies."""

from functools import partial

from asgiref.sync import sync_to_async

from chats.api import Caller
from chats.selectors import access_chat
from peers import actions, waiting
from peers.actions.notices import frame_notices
from peers.framing import frame_all
from peers.inputs import MessageChatInput
from peers.mcp import text
from peers.mcp.inputs import NoInput, ReadChatInput, ReadInboxInput
from peers.mcp.registry import Answer, Later, Tool
from peers.models import PeerMessage
from peers.serializers import (
    chats_with_how_fast,
    entry_json,
    inbox_json,
    listing,
    sent_json,
    watch_json,
    with_watch,
)


def list_chats(caller: Caller, spec: NoInput) -> Answer:
    body = listing(chats_with_how_fast(actions.check_list_chats(caller.chat)))
    return Answer(
        text.chat_list(
            body,
            head="{n} chats you can reach now:",
            empty="No other chat is within reach right now: a chat takes part when the "
            "person turned its agent-to-agent messaging on and it ran recently.",
        ),
        body,
    )


def read_chat(caller: Caller, spec: ReadChatInput) -> Answer:
    entries = actions.check_read_chat(caller.chat, target=spec.chat, limit=spec.limit)
    body = listing([entry_json(entry) for entry in entries])
    return Answer(text.conversation(access_chat(caller.user, spec.chat).name, body), body)


def message_chat(caller: Caller, spec: MessageChatInput) -> Later:
    """As REST's route: peers.waiting.send_and_wait, the send and then any wait."""
    return partial(send_and_wait, caller.chat, spec)


async def send_and_wait(chat, spec: MessageChatInput) -> Answer:
    if spec.subscribe_only:
        watch = await sync_to_async(actions.check_watch)(chat, to=spec.to)
        body = watch_json(watch)
        return Answer(text.watching(body, watch.to_chat.name), body)
    message, answer = await waiting.send_and_wait(chat, **spec.model_dump())
    if spec.wait_seconds <= 0:
        return sent_answer(message, None, waited=False)  # every row it reads is loaded
    return await sync_to_async(sent_answer)(message, answer, waited=True)


def sent_answer(message: PeerMessage, answer: PeerMessage | None, *, waited: bool) -> Answer:
    body = sent_json(message, answer)
    names = {message.to_chat_id: message.to_chat.name} if message.to_chat_id else {}
    return Answer(text.sent(body, names, waited=waited), body)


def read_inbox(caller: Caller, spec: ReadInboxInput) -> Later:
    return partial(read_and_mark_seen, caller.chat, spec.wait_seconds)


async def read_and_mark_seen(chat, wait: float) -> Answer:
    """The inbox's long-poll, then what it read marked seen (that delivers it, path inbox),
    and the notices of this chat's sent messages, told (REST's inbox and seen in one)."""
    waiting_now, notices = await waiting.poll_inbox(chat, wait=wait)
    ids = [message.pk for message in waiting_now]
    marked = await sync_to_async(actions.check_mark_seen)(chat, ids=ids) if ids else []
    told = [notice.pk for notice in notices]
    told = await sync_to_async(actions.take_notices)(chat, ids=told) if told else []
    body = inbox_json(marked, told)
    if not marked and not told:
        return Answer("No message waits for you.", body)
    parts = [frame_notices(told)] if told else []
    if marked:
        parts.append(f"{len(marked)} message(s) for you:\n\n{frame_all(marked)}")
    return Answer("\n\n".join(parts), body)


TOOLS = [
    Tool(
        "ListChats",
        "List the other chats of your person that you can message now: each with its id, "
        "name, repository, branch, status, what the person last asked it, what it last "
        "answered, and how fast a message would reach it. No arguments.",
        NoInput,
        list_chats,
    ),
    Tool(
        "ReadChat",
        "Read another chat's latest conversation entries (the person's prompts, its "
        "answers, the peer messages it sent and received), oldest first, without "
        "interrupting it. `chat`: its id. `limit`: how many entries (default 20, at most 100).",
        ReadChatInput,
        read_chat,
    ),
    Tool(
        "MessageChat",
        "Send a message to another chat of your person. `to`: its id. `text`: what you need, "
        "self-contained. `replyTo`: the id of the message you are answering (leave it out to "
        "start a new exchange). `waitSeconds`: how long to wait inside this call for the "
        "answer (default 45, at most 45; 0 returns at once and the answer arrives later, "
        "between your steps). `notifyWhenIdle`: true to hear once, with a notice, when it next "
        "ends a turn (idle, waiting, stopped or failed) — its state and its last answer's "
        "first lines; with it `text` may be left out to only subscribe. `idempotencyKey`: "
        "optional; a retry with the same key sends nothing more and returns the first answer.",
        MessageChatInput,
        message_chat,
        creates=True,
        replay=lambda message: sent_answer(with_watch(message), message.answer, waited=False),
    ),
    Tool(
        "ReadInbox",
        "Read the messages other chats sent you that have not reached you yet, oldest "
        "first; reading them delivers them. `waitSeconds`: how long to wait for the first "
        "one when none waits (default 0, at most 60). Every tool's answer also ends with "
        "what waits for you: call this when you have nothing else to do and expect an answer.",
        ReadInboxInput,
        read_inbox,
    ),
]
