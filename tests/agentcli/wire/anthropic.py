"""Messages API (`POST /v1/messages`), as Claude Code speaks it."""

import json

from tests.agentcli.script import Directive, Event
from tests.agentcli.wire import MCP_SERVER, Answer, missing, new_id, pick, sse, text_of


class Anthropic:
    """Messages API (`POST /v1/messages`), as Claude Code speaks it."""

    name = "anthropic"

    @staticmethod
    def events(body: dict) -> list[Event]:
        events = []
        for message in body.get("messages", []):
            role, content = message.get("role"), message.get("content")
            if role == "system":
                events.append(Event("context", text_of(content)))
                continue
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks or []:
                events.extend(Anthropic._block_events(role, block))
        return events

    @staticmethod
    def _block_events(role: str, block: dict) -> list[Event]:
        kind = block.get("type")
        if role == "assistant":
            return [Event("call", name=block.get("name", ""))] if kind == "tool_use" else []
        if kind == "tool_result":
            return [Event("result", text_of(block.get("content", "")))]
        if kind == "text":
            return [Event("text", block.get("text", ""))]
        return []

    @staticmethod
    def tool_answer(directive: Directive, body: dict) -> Answer:
        offered = {tool.get("name"): tool for tool in body.get("tools", [])}
        if directive.kind == "bash":
            candidates, args = ["Bash"], {"command": directive.text}
        else:
            candidates = [f"mcp__{MCP_SERVER}__{directive.text}", directive.text]
            args = directive.args
        deferred = Anthropic._deferred(body, candidates)
        name = pick(candidates, offered) or (deferred[0] if deferred else None)
        if name is None:
            return missing(candidates[-1], offered)
        hidden = name not in offered or offered[name].get("defer_loading")
        if hidden and "ToolSearch" in offered and not Anthropic._loaded(body, name):
            return Answer(tool="ToolSearch", args={"query": f"select:{name}"})
        return Answer(tool=name, args=args)

    @staticmethod
    def _deferred(body: dict, candidates: list[str]) -> list[str]:
        """Candidates named on a line of their own in the conversation: Claude Code lists
        the tools ToolSearch can load that way, in a system message."""
        texts = [e.text for e in Anthropic.events(body) if e.kind != "call"]
        return [n for n in candidates if any(f"\n{n}\n" in f"\n{t}\n" for t in texts)]

    @staticmethod
    def _loaded(body: dict, name: str) -> bool:
        """Whether a ToolSearch result already referenced the deferred tool."""
        return f'"tool_name": "{name}"' in json.dumps(body.get("messages", []))

    @staticmethod
    def encode(answer: Answer, body: dict) -> tuple[str, bytes]:
        kind, pieces = Anthropic.pieces(answer, body)
        return kind, b"".join(pieces)

    @staticmethod
    def pieces(answer: Answer, body: dict, chunks: int = 1) -> tuple[str, list[bytes]]:
        """The answer as pieces to send one after another: a streamed text in `chunks`
        text deltas, the first piece opening the message with the first delta, each next
        one a delta more, the last closing the message. Anything else is one piece."""
        model = body.get("model", "claude-fake")
        if answer.tool:
            block = {"type": "tool_use", "id": new_id("toolu_fake_"), "name": answer.tool}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(answer.args)}]
            stop = "tool_use"
        else:
            block = {"type": "text", "text": answer.text}
            deltas = [{"type": "text_delta", "text": part} for part in split(answer.text, chunks)]
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {"id": new_id("msg_fake_"), "type": "message", "role": "assistant"}
        message |= {"model": model, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            full = dict(block, input=answer.args) if answer.tool else block
            done = message | {"content": [full], "stop_reason": stop}
            return "application/json", [json.dumps(done).encode()]
        start = dict(block, input={}) if answer.tool else dict(block, text="")
        frames = [
            sse("message_start", {"type": "message_start", "message": message | {"content": []}})
            + sse("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": start}),
            *(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": delta}) for delta in deltas),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                                  "delta": {"stop_reason": stop, "stop_sequence": None}}),
            sse("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        pieces = [frames[0] + frames[1], *frames[2 : len(deltas) + 1]]
        pieces[-1] += "".join(frames[len(deltas) + 1 :])
        return "text/event-stream", [piece.encode() for piece in pieces]


def split(text: str, chunks: int) -> list[str]:
    """`text` in `chunks` pieces of about one length (fewer when it is shorter)."""
    size = max(1, -(-len(text) // max(1, chunks)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
