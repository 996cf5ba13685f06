"""Gemini API (`POST /v1beta/models/M:streamGenerateContent?alt=sse` and
`:generateContent`), as Gemini CLI speaks it."""

import html
import json
import re

from tests.agentcli.script import Directive, Event
from tests.agentcli.wire import MCP_SERVER, Answer, missing, pick, sse, text_of

# Gemini CLI's side calls in JSON mode (router, next speaker, loop check) read these keys.
_JSON_DEFAULTS = {
    "reasoning": "fake",
    "next_speaker": "user",
    "model_choice": "flash",
    "complexity_reasoning": "fake",
    "complexity_score": 1,
    "unproductive_state_confidence": 0.0,
    "unproductive_state_analysis": "fake",
}
# Gemini CLI HTML-escapes hook text inside <hook_context> (`>` arrives as `&gt;`).
_HOOK_CONTEXT = re.compile(r"<hook_context>(.*?)</hook_context>", re.DOTALL)
_BY_TYPE = {"STRING": "fake", "INTEGER": 1, "NUMBER": 0.0, "BOOLEAN": False,
            "ARRAY": [], "OBJECT": {}}  # fmt: skip


def _unescape_hooks(text: str) -> str:
    return _HOOK_CONTEXT.sub(
        lambda m: f"<hook_context>{html.unescape(m.group(1))}</hook_context>", text
    )


class Gemini:
    name = "gemini"

    @staticmethod
    def events(body: dict) -> list[Event]:
        events = []
        for content in body.get("contents", []):
            model_side = content.get("role") == "model"
            for part in content.get("parts", []):
                if "functionCall" in part:
                    events.append(Event("call", name=part["functionCall"].get("name", "")))
                elif "functionResponse" in part:
                    response = part["functionResponse"].get("response", {})
                    events.append(Event("result", _unescape_hooks(text_of(response))))
                elif "text" in part and not model_side and not part.get("thought"):
                    events.append(Event("text", _unescape_hooks(part["text"])))
        return events

    @staticmethod
    def offered(body: dict) -> set[str]:
        tools = body.get("tools") or []
        return {d.get("name") for t in tools for d in t.get("functionDeclarations") or []}

    @staticmethod
    def wants_json(body: dict) -> bool:
        config = body.get("generationConfig") or {}
        return config.get("responseMimeType") == "application/json"

    @staticmethod
    def json_text(body: dict) -> str:
        """Parseable JSON with every key the side call's schema asks for."""
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        answer = dict(_JSON_DEFAULTS)
        for key, spec in (schema.get("properties") or {}).items():
            kind = str(spec.get("type", "STRING")).upper()
            answer.setdefault(key, spec.get("enum", [None])[0] or _BY_TYPE.get(kind, "fake"))
        return json.dumps(answer)

    @staticmethod
    def tool_answer(directive: Directive, body: dict) -> Answer:
        offered = Gemini.offered(body)
        if directive.kind == "bash":
            name, args = pick(["run_shell_command"], offered), {"command": directive.text}
        else:
            name = pick([f"mcp_{MCP_SERVER}_{directive.text}", directive.text], offered)
            args = directive.args
        if name is None:
            return missing(directive.text if directive.kind == "call" else "shell", offered)
        return Answer(tool=name, args=args)

    @staticmethod
    def encode(answer: Answer, model: str, *, stream: bool) -> tuple[str, bytes]:
        if answer.tool:
            part = {"functionCall": {"name": answer.tool, "args": answer.args},
                    "thoughtSignature": "skip_thought_signature_validator"}  # fmt: skip
        else:
            part = {"text": answer.text}
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": model,
        }  # fmt: skip
        if not stream:
            return "application/json", json.dumps(chunk).encode()
        return "text/event-stream", sse(None, chunk).encode()
