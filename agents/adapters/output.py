"""A CLI turn's events on their way into the conversation, as they come.

Tool calls become one entry each; the agent's words become one answer entry
that grows; warnings and errors the CLI recovers from become notes (one repeated
shows once, counted: chats.actions). Text deltas are coalesced, so a chatty stream
costs at most one write per FLUSH_SECONDS; a whole message after its deltas
(Claude's) completes the entry they grew, never a second one. Every write goes
through chats.actions (pushed after commit)."""

import time

from agents.adapters.events import (
    Cost,
    Event,
    Failure,
    Final,
    Notice,
    Said,
    Session,
    ToolCall,
    ToolDone,
    ToolsMissing,
    Trouble,
)
from agents.dbthread import in_db_thread
from chats.actions import do_add_entry, do_set_entry_text
from chats.models import Entry, Turn

FLUSH_SECONDS = 0.5


class TurnOutput:
    def __init__(self, turn: Turn, *, flush_seconds: float = FLUSH_SECONDS) -> None:
        self.turn = turn
        self.flush_seconds = flush_seconds
        self.session_id = ""
        self.final: str | None = None
        self.failure = ""
        # The last error the CLI reported on the way (the reason, should the turn end badly).
        self.trouble = ""
        self.tools_missing = ""
        # Steps started whose results have not come back (the CLI is not waiting on the model).
        self.open_tools = 0
        self.cost_usd: float | None = None
        # The answer being written: its entry once shown, its text, whether unsaved.
        self.draft: Entry | None = None
        self.text = ""
        self.dirty = False
        # The entry takes no more deltas (a note came, or its message came whole): the
        # next words are a new answer.
        self.sealed = False
        self.flushed_at = float("-inf")  # the first words show at once, whatever the uptime

    @property
    def final_text(self) -> str:
        """The CLI's own final text, else the last thing the agent said."""
        return (self.final if self.final is not None else self.text).strip()

    async def take(self, events: list[Event]) -> bool:
        """Show these events; whether they are progress (not only a retry of the model)."""
        for event in events:
            await self.take_one(event)
        if self.dirty and time.monotonic() - self.flushed_at >= self.flush_seconds:
            await self.flush()
        return not events or not all(
            isinstance(event, Trouble) and event.retrying for event in events
        )

    async def take_one(self, event: Event) -> None:
        match event:
            case Said(text=text, delta=True):
                if self.sealed:
                    await self.close_draft()
                self.text += text
                self.dirty = True
            case Said(text=text):
                await self.take_whole(text)
            case ToolCall():
                await self.close_draft()
                self.open_tools += 1
                await self.add(Entry.Kind.TOOL, f"{event.summary()}\n{event.details()}")
            case ToolDone():
                self.open_tools = max(0, self.open_tools - 1)
            case Final(text=text):
                self.final = text
            case Session(session_id=session_id):
                self.session_id = session_id
            case Failure(message=message):
                self.failure = message
            case Trouble(message=message, note=False):
                self.trouble = message
            case Trouble(message=message):
                await self.note_trouble(message)
            case ToolsMissing(reason=reason):
                self.tools_missing = self.tools_missing or reason
            case Cost(usd=usd):
                self.cost_usd = usd
            case Notice(text=text):
                # The words after a note (Gemini's, as it takes a message) are a new answer;
                # those before it stay the final text if none come.
                await self.flush()
                await self.add(Entry.Kind.NOTICE, text)
                self.sealed = True

    async def take_whole(self, text: str) -> None:
        """A whole message: shown at once, in its place. After the deltas that grew it
        (Claude streams a block, then sends it whole) it completes their entry."""
        if self.sealed or not text.strip().startswith(self.text.strip()):
            await self.close_draft()
        self.text, self.dirty, self.sealed = text, True, True
        await self.flush()

    async def note_trouble(self, message: str) -> None:
        """A note for each error; one retried over and over is one note, counted
        (chats.actions adds to the count of the turn's last note when it is the same)."""
        await self.flush()  # the words so far show before it
        await self.add(Entry.Kind.NOTICE, message)
        self.trouble = message

    async def flush(self) -> None:
        """Show the answer as it stands (the runner calls it once more at the end)."""
        if not self.dirty or not self.text.strip():
            return
        if self.draft is None:
            self.draft = await self.add(Entry.Kind.ANSWER, self.text)
        else:
            await in_db_thread(do_set_entry_text)(self.draft, text=self.text)
        self.dirty, self.flushed_at = False, time.monotonic()

    async def close_draft(self) -> None:
        """What was said before a step stays as it was; the next words start afresh."""
        await self.flush()
        self.draft, self.text, self.dirty, self.sealed = None, "", False, False

    async def add(self, kind: str, text: str) -> Entry:
        return await in_db_thread(do_add_entry)(
            self.turn.chat, kind=kind, text=text, turn=self.turn
        )
