"""OpenAI Responses API (`POST /v1/responses`), as Codex speaks it."""

import json

from tests.agentcli.script import Directive, Event
from tests.agentcli.wire import MCP_SERVER, Answer, missing, new_id, sse, text_of

_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


class Responses:
    name = "openai"

    @staticmethod
    def events(body: dict) -> list[Event]:
        events = []
        for item in body.get("input", []):
            kind = item.get("type", "message")
            if kind in _CALLS:
                events.append(Event("call", name=item.get("name", "local_shell")))
            elif kind in _OUTPUTS:
                events.append(Event("result", text_of(item.get("output", ""))))
            elif kind == "message" and item.get("role") != "assistant":
                role = "text" if item.get("role") == "user" else "context"
                events.extend(Event(role, text_of(part)) for part in item.get("content", []))
        return events

    @staticmethod
    def offered(body: dict) -> dict[tuple[str, str], dict]:
        """(namespace, name) of every function offered; namespace "" for top-level ones."""
        offered = {}
        for tool in body.get("tools", []):
            if tool.get("type") == "namespace":
                for inner in tool.get("tools", []):
                    offered[(tool.get("name", ""), inner.get("name", ""))] = inner
            elif tool.get("name"):
                offered[("", tool["name"])] = tool
        return offered

    @staticmethod
    def tool_answer(directive: Directive, body: dict) -> Answer:
        offered = Responses.offered(body)
        if directive.kind == "bash":
            return Responses._shell(directive.text, offered)
        for key in ((f"mcp__{MCP_SERVER}", directive.text), ("", directive.text)):
            if key in offered:
                return Answer(tool=key[1], args=directive.args, namespace=key[0])
        return missing(directive.text, [f"{ns}.{name}".lstrip(".") for ns, name in offered])

    @staticmethod
    def _shell(command: str, offered) -> Answer:
        # Codex 0.171 offers exec_command {cmd}; older builds shell_command or shell.
        if ("", "exec_command") in offered:
            return Answer(tool="exec_command", args={"cmd": command})
        if ("", "shell_command") in offered:
            return Answer(tool="shell_command", args={"command": command})
        if ("", "shell") in offered:
            return Answer(tool="shell", args={"command": ["bash", "-lc", command]})
        return missing("exec_command", [name for _, name in offered])

    @staticmethod
    def item(answer: Answer) -> dict:
        if answer.tool:
            item = {"type": "function_call", "id": new_id("fc_"), "call_id": new_id("call_")}
            item |= {"name": answer.tool, "arguments": json.dumps(answer.args)}
            if answer.namespace:
                item["namespace"] = answer.namespace
        else:
            content = [{"type": "output_text", "text": answer.text, "annotations": []}]
            item = {"type": "message", "id": new_id("msg_"), "role": "assistant"}
            item["content"] = content
        return item | {"status": "completed"}

    @staticmethod
    def encode(answer: Answer, body: dict) -> tuple[str, bytes]:
        item = Responses.item(answer)
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}  # fmt: skip
        response = {"id": new_id("resp_"), "object": "response", "model": body.get("model")}
        done = response | {"status": "completed", "output": [item], "usage": usage}
        if not body.get("stream"):
            return "application/json", json.dumps(done).encode()
        added = dict(item, status="in_progress")
        if answer.tool:
            added["arguments"] = ""
            delta = {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                     "output_index": 0, "delta": item["arguments"]}  # fmt: skip
        else:
            added["content"] = []
            delta = {"type": "response.output_text.delta", "item_id": item["id"],
                     "output_index": 0, "content_index": 0, "delta": answer.text}  # fmt: skip
        events = [
            {"type": "response.created", "response": response | {"status": "in_progress",
                                                                 "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            delta,
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": done},
        ]  # fmt: skip
        text = "".join(sse(e["type"], e | {"sequence_number": n}) for n, e in enumerate(events))
        return "text/event-stream", text.encode()
