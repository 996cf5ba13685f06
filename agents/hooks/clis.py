"""One place per CLI: what its events are called, its payload, and the JSON it reads back."""

from dataclasses import dataclass

from agents.hooks.payloads import ClaudePayload, CodexPayload, Event, GeminiPayload, HookPayload

CLAUDE_EVENTS = {
    "SessionStart": Event.SESSION_START,
    "UserPromptSubmit": Event.PROMPT,
    "PostToolUse": Event.AFTER_STEP,
    "Stop": Event.FINISHING,
    "SessionEnd": Event.SESSION_END,
}
# Only Claude Code has its own messaging tools to route (agents.hooks.native_messaging).
CLAUDE_CODE_EVENTS = {**CLAUDE_EVENTS, "PreToolUse": Event.BEFORE_TOOL}
GEMINI_EVENTS = {
    "SessionStart": Event.SESSION_START,
    "BeforeAgent": Event.PROMPT,
    "AfterTool": Event.AFTER_STEP,
    "AfterAgent": Event.FINISHING,
    "SessionEnd": Event.SESSION_END,
}


@dataclass(frozen=True, slots=True)
class Cli:
    name: str
    payload: type[HookPayload]
    events: dict[str, Event]
    # The word for "do not stop yet: here is more" in its Stop / AfterAgent answer.
    block_decision: str

    def event(self, name: str) -> Event:
        return self.events.get(name, Event.OTHER)

    def context(self, event_name: str, text: str) -> dict:
        """Extra context the agent reads after this event (a prompt line, messages)."""
        return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}

    def deny(self, event_name: str, text: str) -> dict:
        """Refuse the tool call; the model reads `text` as its result (Claude's PreToolUse)."""
        decision = {"permissionDecision": "deny", "permissionDecisionReason": text}
        return {"hookSpecificOutput": {"hookEventName": event_name, **decision}}

    def block(self, text: str) -> dict:
        """Keep the agent going with `text` instead of finishing."""
        return {"decision": self.block_decision, "reason": text}


CLIS = {
    "claude-code": Cli("claude-code", ClaudePayload, CLAUDE_CODE_EVENTS, "block"),
    # Codex 0.171 reads Claude Code's hook names and answers.
    "codex": Cli("codex", CodexPayload, CLAUDE_EVENTS, "block"),
    # Gemini: AfterAgent's "deny" rejects the answer and sends the reason as a new prompt.
    "gemini": Cli("gemini", GeminiPayload, GEMINI_EVENTS, "deny"),
}
