"""The built-in offline agent (docs/demo-agent.md).

It reads the person's prompt line by line; peer messages and outside content are only
acknowledged, never obeyed, so neither can make it work, send or fail."""

import asyncio
import html
import re

from django.conf import settings

from agents import peer_calls
from agents.adapters.base import Adapter, TurnContext, TurnResult
from agents.errors import AgentFailed
from chats.models import Chat
from kernel.refusals import Refusal
from peers.models import PeerMessage
from peers.refusal_words import for_person

# How long an `ask` waits for the answer inside its turn.
ASK_WAIT_SECONDS = 30

# `work N` and `background N` do at most this many steps: a prompt cannot keep a
# runner's slot (or a background task) busy for days.
MAX_STEPS = 100
WORK = re.compile(r"work\s+(\d+)", re.IGNORECASE)
BACKGROUND = re.compile(r"background\s+(\d+)", re.IGNORECASE)
ASK = re.compile(r"ask\s+([^:]+?)\s*:\s*(.+)", re.IGNORECASE)
TELL = re.compile(r"tell\s+([^:]+?)\s*:\s*(.+)", re.IGNORECASE)
FAIL = re.compile(r"fail", re.IGNORECASE)
# A block of outside content (origins.framing): its lines are a stranger's, not directives.
OUTSIDE = re.compile(
    r'<outside-content origin="([^"]*)"[^>]*? author="([^"]*)" boundary="([0-9a-f]+)">\n'
    r'.*?\n\n(.*?)\n</outside-content boundary="\3">',
    re.DOTALL,
)


def step_seconds() -> float:
    return settings.DEMO_STEP_SECONDS


def steps(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"


def capped(digits: str) -> int:
    return min(int(digits), MAX_STEPS)


class DemoAgent(Adapter):
    kind = Chat.Agent.DEMO
    takes_messages_as_finished = True

    async def run(self, ctx: TurnContext) -> TurnResult:
        await self.acknowledge(ctx, ctx.messages)
        for origin, author, _, text in OUTSIDE.findall(ctx.prompt):
            first = html.unescape(text).strip().splitlines()[0][:200]
            by = f" by {html.unescape(author)}" if author else ""
            ctx.say(f'Read a request from {origin}{by}: "{first}"')
        for line in OUTSIDE.sub("", ctx.prompt).splitlines():
            if line.strip():
                await self.follow(ctx, line.strip())
                await ctx.check_running()
        return ctx.result()

    async def take_as_finished(self, ctx: TurnContext, messages: list[PeerMessage]) -> TurnResult:
        await self.acknowledge(ctx, messages)
        return ctx.result()

    async def background_work(self, ctx: TurnContext, count: int) -> None:
        await asyncio.sleep(count * step_seconds())

    async def follow(self, ctx: TurnContext, line: str) -> None:
        if match := WORK.fullmatch(line):
            await self.work(ctx, capped(match[1]))
        elif match := BACKGROUND.fullmatch(line):
            count = capped(match[1])
            ctx.background_steps = min(ctx.background_steps + count, MAX_STEPS)
            ctx.say(f"Left {steps(count)} of background work running.")
        elif match := ASK.fullmatch(line):
            await self.ask(ctx, match[1], match[2])
        elif match := TELL.fullmatch(line):
            await self.tell(ctx, match[1], match[2])
        elif FAIL.fullmatch(line):
            raise AgentFailed("the demo agent was told to fail")
        else:
            ctx.say(line)

    async def work(self, ctx: TurnContext, count: int) -> None:
        for _ in range(count):
            await asyncio.sleep(step_seconds())
            await ctx.check_running()
            # Like Claude Code's PostToolUse hook: what is pending arrives between steps.
            arrived = await peer_calls.deliver_between_steps(ctx.chat)
            for notice in await peer_calls.take_notices(ctx.chat):
                ctx.say(f"Heard: {notice}")  # what became of a message it sent
            await self.acknowledge(ctx, arrived)
        ctx.say(f"Worked {steps(count)}.")

    async def ask(self, ctx: TurnContext, name: str, text: str) -> None:
        to = await self.address(ctx, name)
        try:
            message, answer = await peer_calls.send_and_wait(
                ctx.chat, to=to, text=text, wait_seconds=ASK_WAIT_SECONDS
            )
        except Refusal as refusal:
            ctx.say(f"Could not ask {name}. {for_person(refusal)}")
            return
        if answer is not None:
            # Its own entry, linked to the answer: the page shows the answer once, in its card.
            await peer_calls.relay_answer(ctx.chat, f"{name} answered: {answer.text}", answer)
            return
        words = await peer_calls.state_words(message)
        ctx.say(f"No answer from {name} came in time; the message is {words}.")

    async def tell(self, ctx: TurnContext, name: str, text: str) -> None:
        to = await self.address(ctx, name)
        try:
            await peer_calls.send_message(ctx.chat, to=to, text=text)
        except Refusal as refusal:
            ctx.say(f"Could not tell {name}. {for_person(refusal)}")
            return
        ctx.say(f"Told {name}: {text}")

    async def address(self, ctx: TurnContext, name: str) -> str:
        """The chat's id; an unknown name is passed on, so peers refuses it as no_chat."""
        chat = await peer_calls.find_chat_by_name(ctx.chat, name)
        return chat.pk if chat is not None else name

    async def acknowledge(self, ctx: TurnContext, messages: list[PeerMessage]) -> None:
        for line in await peer_calls.first_lines(ctx.chat, messages):
            ctx.say(line)
