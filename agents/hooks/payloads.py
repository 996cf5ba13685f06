"""What each CLI sends to a hook, as small typed models.

Only the fields Crosstalk reads are declared; the CLIs send more (and add
fields between versions), so the rest is ignored. Types are strict: a
malformed payload is refused with 400 invalid_input, never guessed at."""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chats.inputs import SessionId
from kernel.inputs import parse

__all__ = ["ClaudePayload", "CodexPayload", "Event", "GeminiPayload", "HookPayload", "parse"]

HOOK_CONTEXT_OPEN, HOOK_CONTEXT_CLOSE = "<hook_context>", "</hook_context>"


class Event(StrEnum):
    """The five moments Crosstalk acts on, whatever each CLI calls them."""

    SESSION_START = "session_start"
    PROMPT = "prompt"
    AFTER_STEP = "after_step"
    FINISHING = "finishing"
    SESSION_END = "session_end"
    # Claude Code's PreToolUse, for its own messaging tools (agents.hooks.native_messaging).
    BEFORE_TOOL = "before_tool"
    OTHER = "other"


class HookPayload(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    session_id: SessionId
    hook_event_name: str = Field(min_length=1, max_length=100)
    transcript_path: str | None = None
    cwd: str | None = None
    prompt: str | None = None
    stop_hook_active: bool = False
    # Sent by the CLI on Stop, or added by the hook command from the transcript.
    last_assistant_message: str | None = None

    @property
    def final_text(self) -> str:
        return self.last_assistant_message or ""

    @property
    def person_prompt(self) -> str:
        """What the person wrote, without what hooks added to it."""
        return self.prompt or ""


class ClaudePayload(HookPayload):
    source: str | None = None
    reason: str | None = None
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None


class CodexPayload(HookPayload):
    turn_id: str | None = None
    tool_name: str | None = None


class GeminiPayload(HookPayload):
    # AfterAgent carries the final text here.
    prompt_response: str | None = None
    tool_name: str | None = None

    @property
    def final_text(self) -> str:
        return self.prompt_response or self.last_assistant_message or ""

    @property
    def person_prompt(self) -> str:
        # Gemini puts SessionStart's context in front of the prompt, in its own block.
        text = self.prompt or ""
        while text.startswith(HOOK_CONTEXT_OPEN) and HOOK_CONTEXT_CLOSE in text:
            text = text.split(HOOK_CONTEXT_CLOSE, 1)[1].lstrip("\n")
        return text
