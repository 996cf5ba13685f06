"""A refusal as the person reads it: plain words, no code. REST and MCP keep the code
and the sentence written for the agent (which may say "ask the person")."""

import re

from kernel.refusals import Refusal

# A refusal's code in a few words (the activity log, the pages, the demo agent).
REFUSED = {
    "no_chat": "there is no such chat",
    "not_yourself": "a chat cannot message itself",
    "outside_origin": "a chat started from outside cannot send",
    "outside_chat": "a chat started from outside cannot be connected or written as",
    "not_reachable": "the other chat has messaging off or has not run lately",
    "empty_message": "the message was empty",
    "message_too_long": "the message was too long",
    "no_such_message": "it answered a message it never got",
    "limit_chat_hour": "it sent too many messages this hour",
    "limit_pair_window": "the two chats wrote too often in a short time",
    "limit_pair_without_you": "the two chats wrote too long without you",
    "limit_wakes": "too many idle chats were woken this hour",
    "limit_chain": "the chain of messages grew too long without you",
    "limit_list_read": "it listed or read chats too often this hour",
    "peers_off": "its agent-to-agent messaging is off",
    "runners_not_allowed": "this account may not run agents on this server",
    "too_many_attempts": "too many attempts; try again later",
    "invalid_input": "a field was not valid",
    "no_message": "there is no such message",
    "already_delivered": "the message had already arrived",
    # Requests from origins (docs/origins.md).
    "bad_signature": "a request from outside was not signed right",
    "duplicate_delivery": "a request from outside came again",
    "limit_origin_hour": "an origin sent too many requests this hour",
}
# Codes only requests from outside get: their rows name no chat that sent.
FROM_OUTSIDE = {"bad_signature", "duplicate_delivery", "limit_origin_hour"}
# What the person can do about it, where there is something.
REMEDY = {
    "not_reachable": "Turn its messaging on, or write to it so it runs.",
    "peers_off": "Turn agent-to-agent messaging on in the chat's ⋯ menu.",
    "limit_pair_window": "Wait a few minutes, or write to one of them yourself.",
    "limit_pair_without_you": "Write to one of them yourself to let them go on.",
    "limit_chain": "Write to one of them yourself to let them go on.",
    "limit_chat_hour": "Wait a while before sending more.",
    "limit_wakes": "Wait a while, or write to the chat yourself.",
    "runners_not_allowed": "Ask an admin to let your account run agents on this server.",
}
# Sentences already written for the person, kept as they are.
AS_WRITTEN = {
    "empty_message",
    "message_too_long",
    "invalid_input",
    "already_delivered",
    "outside_chat",  # names the chat and where it came from
}


def refused_words(code: str) -> str:
    return REFUSED.get(code, "it was refused")


# The number a limit's sentence names (peers.actions.limits: "… (5).").
LIMIT_NUMBER = re.compile(r"\((\d+)\)")


def for_person(refusal: Refusal) -> str:
    """One or two sentences with no machine code in them, in the person's words (never
    the agent's "tell the person"), with the limit's number when a limit refused."""
    if refusal.code in AS_WRITTEN:
        return refusal.message
    words = refused_words(refusal.code)
    number = LIMIT_NUMBER.search(refusal.message) if refusal.code.startswith("limit_") else None
    if number:
        words += f" (the limit is {number[1]})"
    remedy = REMEDY.get(refusal.code)
    return f"Not sent: {words}." + (f" {remedy}" if remedy else "")
