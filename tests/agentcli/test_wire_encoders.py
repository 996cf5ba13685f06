"""The SSE and JSON answers of the three dialects, read back the way a client would."""

import json

from tests.agentcli.script import Directive
from tests.agentcli.wire import Answer
from tests.agentcli.wire.anthropic import Anthropic
from tests.agentcli.wire.gemini import Gemini
from tests.agentcli.wire.responses import Responses


def read_sse(payload: bytes) -> list[tuple[str | None, dict]]:
    events = []
    for frame in payload.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        events.append((lines.get("event"), json.loads(lines["data"])))
    return events


def test_it_streams_an_anthropic_tool_use_in_message_order():
    kind, payload = Anthropic.encode(Answer(tool="Bash", args={"command": "ls"}), {"stream": True})
    events = read_sse(payload)

    assert kind == "text/event-stream"
    assert [name for name, _ in events] == [
        "message_start", "content_block_start", "content_block_delta",
        "content_block_stop", "message_delta", "message_stop",
    ]  # fmt: skip
    assert all(data["type"] == name for name, data in events)
    assert events[1][1]["content_block"] | {"id": "x"} == {
        "type": "tool_use", "id": "x", "name": "Bash", "input": {}
    }  # fmt: skip
    assert json.loads(events[2][1]["delta"]["partial_json"]) == {"command": "ls"}
    assert events[4][1]["delta"]["stop_reason"] == "tool_use"


def test_it_answers_anthropic_text_without_stream_as_one_message():
    kind, payload = Anthropic.encode(Answer(text="hi"), {"stream": False, "model": "m"})
    message = json.loads(payload)

    assert kind == "application/json"
    assert (message["content"], message["stop_reason"]) == ([{"type": "text", "text": "hi"}],
                                                            "end_turn")  # fmt: skip


def test_it_streams_a_responses_function_call_with_its_namespace():
    answer = Answer(tool="echo", args={"text": "a"}, namespace="mcp__crosstalk")
    events = read_sse(Responses.encode(answer, {"stream": True})[1])

    assert [name for name, _ in events] == [
        "response.created", "response.output_item.added",
        "response.function_call_arguments.delta", "response.output_item.done",
        "response.completed",
    ]  # fmt: skip
    item = events[3][1]["item"]
    assert (item["type"], item["namespace"], item["name"]) == ("function_call", "mcp__crosstalk",
                                                               "echo")  # fmt: skip
    assert json.loads(item["arguments"]) == {"text": "a"}
    assert events[4][1]["response"]["output"] == [item]
    assert events[4][1]["response"]["usage"]["total_tokens"] == 15


def test_it_streams_responses_text_as_an_assistant_message():
    events = read_sse(Responses.encode(Answer(text="done"), {"stream": True})[1])

    assert events[2][1] | {"item_id": "x"} == {
        "type": "response.output_text.delta", "item_id": "x", "output_index": 0,
        "content_index": 0, "delta": "done", "sequence_number": 2,
    }  # fmt: skip
    assert events[3][1]["item"]["content"][0]["text"] == "done"


def test_it_streams_a_gemini_function_call_as_one_data_frame():
    answer = Answer(tool="run_shell_command", args={"command": "ls"})
    ((name, chunk),) = read_sse(Gemini.encode(answer, "gemini-x", stream=True)[1])

    assert name is None
    candidate = chunk["candidates"][0]
    assert candidate["content"]["parts"][0]["functionCall"] == {
        "name": "run_shell_command", "args": {"command": "ls"}
    }  # fmt: skip
    assert (candidate["finishReason"], chunk["modelVersion"]) == ("STOP", "gemini-x")


def test_it_answers_gemini_json_mode_with_every_key_of_the_schema():
    schema = {"properties": {"complexity_score": {"type": "INTEGER"}, "odd": {"type": "BOOLEAN"},
                             "pick": {"type": "STRING", "enum": ["a", "b"]}}}  # fmt: skip
    body = {"generationConfig": {"responseMimeType": "application/json",
                                 "responseJsonSchema": schema}}  # fmt: skip

    assert Gemini.wants_json(body)
    answer = json.loads(Gemini.json_text(body))
    assert (answer["complexity_score"], answer["odd"], answer["pick"]) == (1, False, "a")
    assert answer["next_speaker"] == "user"


def test_it_names_the_shell_and_mcp_tools_each_cli_offers():
    claude = {"tools": [{"name": "Bash"}, {"name": "mcp__crosstalk__ReadChat"}]}
    codex = {"tools": [{"type": "function", "name": "exec_command"},
                       {"type": "namespace", "name": "mcp__crosstalk",
                        "tools": [{"name": "ReadChat"}]}]}  # fmt: skip
    declarations = [{"name": "run_shell_command"}, {"name": "mcp_crosstalk_ReadChat"}]
    gemini = {"tools": [{"functionDeclarations": declarations}]}
    bash, read = Directive("bash", "ls"), Directive("call", "ReadChat", {"chat": "c"})

    assert Anthropic.tool_answer(bash, claude) == Answer(tool="Bash", args={"command": "ls"})
    assert Anthropic.tool_answer(read, claude).tool == "mcp__crosstalk__ReadChat"
    assert Responses.tool_answer(bash, codex) == Answer(tool="exec_command", args={"cmd": "ls"})
    assert Responses.tool_answer(read, codex).namespace == "mcp__crosstalk"
    assert Gemini.tool_answer(bash, gemini).tool == "run_shell_command"
    assert Gemini.tool_answer(read, gemini) == Answer(tool="mcp_crosstalk_ReadChat",
                                                      args={"chat": "c"})  # fmt: skip
    assert Gemini.tool_answer(Directive("call", "Nope"), gemini).text.startswith(
        "Fake model: tool Nope is not offered"
    )


def test_it_reads_gemini_hook_context_unescaped():
    output = "<untrusted_context>a &gt; b</untrusted_context>"
    output += "<hook_context>[[bash x &gt; y]]</hook_context>"
    body = {"contents": [{"role": "user", "parts": [
        {"functionResponse": {"name": "run_shell_command", "response": {"output": output}}}
    ]}]}  # fmt: skip

    (event,) = Gemini.events(body)

    assert event.text.endswith("<hook_context>[[bash x > y]]</hook_context>")
    assert "a &gt; b" in event.text


def test_it_cuts_an_anthropic_text_into_pieces_of_one_delta_each():
    kind, pieces = Anthropic.pieces(Answer(text="Alpha beta gamma"), {"stream": True}, chunks=3)
    per_piece = [read_sse(piece) for piece in pieces]

    assert kind == "text/event-stream" and len(pieces) == 3
    deltas = [[d["delta"]["text"] for n, d in events if n == "content_block_delta"]
              for events in per_piece]  # fmt: skip
    assert deltas == [["Alpha "], ["beta g"], ["amma"]]
    assert [name for name, _ in per_piece[0]][:2] == ["message_start", "content_block_start"]
    assert [name for name, _ in per_piece[-1]][-1] == "message_stop"
