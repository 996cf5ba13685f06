"""What a tool is, and the one place a call becomes an MCP result.

Every list and every call starts from the bearer secret again (in a DB thread): the
credential's state (its chat's switch, a revoked token) may change between calls."""

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from pydantic import BaseModel

from chats.api import Caller, caller_for_secret
from kernel.idempotency import arun_once
from kernel.inputs import parse
from kernel.refusals import Refusal
from peers import actions
from peers.mcp.carried import with_waiting
from peers.models import PeerMessage

logger = logging.getLogger(__name__)
IDEMPOTENCY_KEY = "idempotencyKey"
KEY_SCHEMA = {
    "type": "string",
    "description": "Optional. The same key again within 24 h returns the first answer and "
    "sends nothing more: set one to retry a call that timed out safely.",
}


@dataclass(frozen=True, slots=True)
class Answer:
    text: str  # what the model reads
    body: dict  # exactly the REST route's JSON body


# A tool that waits (MessageChat with waitSeconds) hands back the rest of its work.
type Later = Callable[[], Awaitable[Answer]]


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    does: str  # the description's head: what it does, how to call it
    model: type[BaseModel]
    run: Callable[[Caller, Any], Answer | Later]  # in a DB thread; raises Refusal
    # It creates something (a message, a connection, a chat): it takes an idempotencyKey.
    creates: bool = False
    # Its answer rebuilt from the message it sent, for a retry whose first call died
    # after the send committed (kernel.idempotency).
    replay: Callable[[PeerMessage], Answer] | None = None

    def input_schema(self) -> dict:
        schema = self.model.model_json_schema(by_alias=True)
        if self.creates:
            schema.setdefault("properties", {})[IDEMPOTENCY_KEY] = KEY_SCHEMA
        return schema


class Toolbox:
    """The agent's tools and the person's; which ones a credential sees right now."""

    def __init__(self, agent: list[Tool], person: list[Tool], describe_reach) -> None:
        self.agent = {tool.name: tool for tool in agent}
        self.person = {tool.name: tool for tool in person}
        self.describe_reach = describe_reach  # Caller -> str, appended to every description
        self.creating = {tool.name for tool in [*agent, *person] if tool.creates}

    def offered(self, caller: Caller | None) -> dict[str, Tool]:
        if caller is None:
            return {}
        if caller.chat is None:
            return self.person
        return self.agent if caller.chat.takes_part else {}

    def listed(self, secret: str) -> list[types.Tool]:
        caller = caller_for_secret(secret)
        tools = self.offered(caller)
        if not tools:
            return []
        reach = self.describe_reach(caller)
        return [
            types.Tool(
                name=tool.name,
                description=f"{tool.does}\n\n{reach}",
                input_schema=tool.input_schema(),
            )
            for tool in tools.values()
        ]

    def start(self, secret: str, name: str, arguments: dict | None):
        """(who called, what the tool answers now or later, or its refusal): the caller
        comes back with a refusal too, whose answer still carries its messages."""
        caller = caller_for_secret(secret)
        if caller is None:
            return None, Refusal(
                "not_authenticated", "Send Authorization: Bearer with a valid secret."
            )
        try:
            tool = self.find(caller, name)
            # Bad input is an activity row, as on every REST route (crosstalk.middleware).
            with actions.input_refusals_recorded(caller.user, caller.chat):
                spec = parse(tool.model, arguments or {})
            return caller, tool.run(caller, spec)
        except Refusal as refusal:
            return caller, refusal

    def find(self, caller: Caller, name: str) -> Tool:
        if caller.chat is not None and name in self.agent:
            # Recorded like any refusal: peers_off, or outside_origin.
            actions.check_takes_part(caller.chat)
        tool = self.offered(caller).get(name)
        if tool is None:
            raise Refusal("not_found", f"There is no tool named {name!r} for this credential.")
        return tool

    async def call(self, secret: str, name: str, arguments: dict | None) -> types.CallToolResult:
        arguments = dict(arguments or {})
        key = arguments.pop(IDEMPOTENCY_KEY, None) if name in self.creating else None
        if key is None:
            return await self.result(secret, name, arguments)
        if not isinstance(key, str):
            return refused(Refusal("invalid_input", f"{IDEMPOTENCY_KEY}: a string, if given."))
        request = f"mcp {name} {json.dumps(arguments, sort_keys=True, default=str)}"

        async def once() -> tuple[int, dict]:
            return kept(await self.result(secret, name, arguments))

        tool = self.agent.get(name) or self.person.get(name)
        try:
            replay = partial(replay_of, tool.replay)
            _, body = await arun_once(secret, key, once, request=request, replay=replay)
        except Refusal as refusal:
            return refused(refusal)
        return types.CallToolResult.model_validate(body)

    async def result(self, secret: str, name: str, arguments: dict) -> types.CallToolResult:
        caller, result = await self.outcome(secret, name, arguments)
        if not carries_messages(caller):
            return result
        # Every agent tool's answer ends with what waits for its chat (peers.mcp.carried).
        return await sync_to_async(with_waiting)(caller, result)

    async def outcome(self, secret: str, name: str, arguments: dict):
        caller = None
        try:
            caller, outcome = await sync_to_async(self.start)(secret, name, arguments)
            if isinstance(outcome, Refusal):
                raise outcome
            answer = outcome if isinstance(outcome, Answer) else await outcome()
        except Refusal as refusal:
            return caller, refused(refusal)
        except Exception:
            # As REST's server_error: the model reads a sentence, the log keeps the trace.
            logger.exception("The MCP tool %s failed.", name)
            return caller, refused(Refusal("server_error", "Something went wrong here; try again."))
        return caller, as_result(answer)


def carries_messages(caller: Caller | None) -> bool:
    return caller is not None and caller.chat is not None and caller.chat.takes_part


def as_result(answer: Answer) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text)],
        structured_content=answer.body,
    )


def replay_of(rebuild: Callable[[PeerMessage], Answer] | None, result: str):
    """A kept result rebuilt from the message a dead first call sent (or None)."""
    kind, _, pk = result.partition(":")
    message = PeerMessage.objects.filter(pk=pk).first() if kind == "message" else None
    if rebuild is None or message is None:
        return None
    return kept(as_result(rebuild(message)))


def kept(result: types.CallToolResult) -> tuple[int, dict]:
    """A result as kernel.idempotency keeps it: a refusal worth retrying (a limit, a
    server error) carries its REST status, so it is not kept and a retry runs again."""
    status = 200
    if result.is_error:
        status = Refusal(str(result.structured_content.get("code")), "").status
    return status, result.model_dump(mode="json", by_alias=True, exclude_none=True)


def refused(refusal: Refusal) -> types.CallToolResult:
    """In band, as MCP wants: the text starts with the stable code, then a colon."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{refusal.code}: {refusal.message}")],
        structured_content=refusal.as_json(),
        is_error=True,
    )
