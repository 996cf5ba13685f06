"""Each adapter's parser, on the event streams captured from the real CLIs."""

import json
from pathlib import Path

import pytest

from agents.adapters.claude_code import parse_claude_line
from agents.adapters.codex import parse_codex_line
from agents.adapters.events import (
    Cost,
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
from agents.adapters.gemini import parse_gemini_line

# Output of the real CLIs, captured from runs against a fake model and kept here.
SAMPLES = Path(__file__).parent / "samples"


def events_of(name: str, parse) -> list:
    return [event for line in (SAMPLES / name).read_text().splitlines() for event in parse(line)]


def of_type(events, kind) -> list:
    return [event for event in events if isinstance(event, kind)]


def test_it_reads_a_claude_turn():
    events = events_of("claude-2.1.332-stream-json-toolsearch.jsonl", parse_claude_line)

    assert {e.session_id for e in of_type(events, Session)} == {
        "a775eb4a-317c-4d58-8a9b-98f73a3752fe"
    }
    calls = of_type(events, ToolCall)
    assert [call.summary() for call in calls] == [
        "Bash · echo hi",
        "ToolSearch · select:mcp__crosstalk__echo",
        "mcp__crosstalk__echo · hello mcp",
    ]
    (final,) = of_type(events, Final)
    assert final.text.startswith("FAKE-FINAL after 2 tool call(s).")
    assert of_type(events, Cost) == [Cost(0.0007000000000000001)]
    assert not of_type(events, Failure) and not of_type(events, Notice)


def test_it_reads_a_resumed_claude_turn_with_the_same_session():
    first = events_of("claude-2.1.197-stream-json-turn1.jsonl", parse_claude_line)
    second = events_of("claude-2.1.197-stream-json-turn2-resume.jsonl", parse_claude_line)

    assert {e.session_id for e in of_type(first, Session)} == {
        e.session_id for e in of_type(second, Session)
    }
    assert of_type(second, Final)


def test_it_reports_a_claude_error_result_even_when_it_says_success():
    line = (
        '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500",'
        '"session_id":"s1","total_cost_usd":0}'
    )
    events = parse_claude_line(line)

    assert Failure("claude reported an error: API Error: 500") in events
    assert not of_type(events, Final)


def test_it_a_claude_that_starts_without_its_crosstalk_tools_says_so():
    init = '{"type":"system","subtype":"init","session_id":"s1","mcp_servers":%s}'

    assert parse_claude_line(init % '[{"name":"crosstalk","status":"failed"}]') == [
        Session("s1"),
        ToolsMissing("the crosstalk MCP server did not connect (failed)"),
    ]
    assert parse_claude_line(init % '[{"name":"other","status":"connected"}]') == [
        Session("s1"),
        ToolsMissing("the crosstalk MCP server was not loaded"),
    ]
    assert parse_claude_line(init % '[{"name":"crosstalk","status":"connected"}]') == [
        Session("s1")
    ]


def test_it_a_claude_retrying_its_model_is_no_progress_and_a_tool_result_ends_a_step():
    retry = (
        '{"type":"system","subtype":"api_retry","attempt":%d,"max_retries":4,'
        '"retry_delay_ms":543,"error_status":500,"error":"server_error"}'
    )
    result = '{"type":"user","message":{"content":[{"type":"tool_result","content":"hi"}]}}'

    # Every attempt reads the same: the conversation shows one note, counted.
    note = "claude is retrying the model: server_error 500 (up to 4 retries)"
    assert (
        parse_claude_line(retry % 1)
        == parse_claude_line(retry % 3)
        == [Trouble(note, retrying=True)]
    )
    assert parse_claude_line(result) == [ToolDone()]


def test_it_reads_claudes_answer_as_it_grows_and_whole_once_it_is_written():
    events = events_of("claude-2.1.332-partial-messages.jsonl", parse_claude_line)
    said = of_type(events, Said)

    assert [call.summary() for call in of_type(events, ToolCall)] == ["Bash · echo hi"]
    # The streamed pieces (text_delta), then the same text whole (its `assistant` message).
    assert said == [
        Said("Alpha beta", delta=True),
        Said(" gamma del", delta=True),
        Said("ta epsilon", delta=True),
        Said("Alpha beta gamma delta epsilon"),
    ]
    assert of_type(events, Final) == [Final("Alpha beta gamma delta epsilon")]


def test_it_a_claude_api_error_is_never_the_agents_words():
    events = events_of("claude-2.1.332-api-error.jsonl", parse_claude_line)

    assert not of_type(events, Said) and not of_type(events, Final)
    (trouble,) = of_type(events, Trouble)
    assert trouble.message.startswith("claude reported an error: API Error: 500 fake failure")
    assert not trouble.note  # the failure that follows shows it, once
    (failure,) = of_type(events, Failure)
    assert failure.message == trouble.message


def test_it_reads_a_codex_turn():
    events = events_of("codex-exec-json.jsonl", parse_codex_line)

    assert of_type(events, Session) == [Session("01a230ce-0a99-7953-9b80-5fcf80deb7d3")]
    assert [call.summary() for call in of_type(events, ToolCall)] == [
        "shell · /bin/bash -lc 'echo hi'",
        "mcp__crosstalk__echo · hello codex",
    ]
    (said,) = of_type(events, Said)
    assert said.text.startswith("FAKE-FINAL after 2 tool call(s).") and not said.delta
    # Its `error` items are warnings (model metadata missing): the turn went on.
    assert not of_type(events, Failure) and not of_type(events, Trouble)
    # Each step that started also ended: the CLI waits on the model again.
    assert len(of_type(events, ToolDone)) == len(of_type(events, ToolCall))


def test_it_resumes_the_same_codex_thread():
    first = events_of("codex-exec-json.jsonl", parse_codex_line)
    second = events_of("codex-exec-resume-json.jsonl", parse_codex_line)

    assert of_type(first, Session) == of_type(second, Session)
    assert of_type(second, Said)[-1].text.startswith("CODEX-TURN2")


def test_it_reports_a_failed_codex_turn():
    line = '{"type":"turn.failed","error":{"message":"stream disconnected"}}'
    assert parse_codex_line(line) == [Failure("codex reported an error: stream disconnected")]


def test_it_a_codex_reconnect_is_a_note_and_no_progress_not_a_failure():
    reconnect = (
        '{"type":"error","message":"Reconnecting... 1/1 (unexpected status 500 Internal'
        ' Server Error: fake failure)"}'
    )
    offline = '{"type":"error","message":"Reconnecting... waiting for network"}'
    other = '{"type":"error","message":"quota exceeded"}'

    (event,) = parse_codex_line(reconnect)
    # Without its attempt counter: every attempt is the same note, counted.
    assert event == Trouble(
        "codex: Reconnecting... (unexpected status 500 Internal Server Error: fake failure)",
        retrying=True,
    )
    assert parse_codex_line(reconnect.replace("1/1", "2/5")) == [event]
    assert parse_codex_line(offline) == [
        Trouble("codex: Reconnecting... waiting for network", retrying=True)
    ]
    assert parse_codex_line(other) == [Trouble("codex reported an error: quota exceeded")]


def test_it_reads_a_gemini_turn():
    events = events_of("gemini-stream-json.jsonl", parse_gemini_line)

    assert of_type(events, Session) == [Session("cd5cce78-2ff9-45c9-a97c-d59a6fa754a8")]
    assert [call.summary() for call in of_type(events, ToolCall)] == [
        "run_shell_command · echo hi",
        "mcp_crosstalk_ReadChat · general",
    ]
    (said,) = of_type(events, Said)
    assert said.delta and said.text.startswith("FAKE-FINAL after 2 tool call(s).")
    # The person's own prompt, echoed as a user message, is not the agent's words.
    assert "turn [[call" not in said.text


def test_it_resumes_the_same_gemini_session():
    first = events_of("gemini-stream-json.jsonl", parse_gemini_line)
    second = events_of("gemini-stream-json-resume.jsonl", parse_gemini_line)

    assert of_type(first, Session) == of_type(second, Session)
    assert of_type(second, Said) == [Said("GEMINI-TURN2", delta=True)]


def test_it_reports_a_gemini_error():
    line = '{"type":"result","status":"error","error":{"type":"x","message":"quota exceeded"}}'
    assert parse_gemini_line(line) == [Failure("gemini reported an error: quota exceeded")]


def test_it_a_gemini_warning_is_a_note_and_an_error_event_is_not_the_turns_end():
    blocked = {
        "type": "error",
        "severity": "warning",
        "message": "Agent execution blocked: <crosstalk-message from='x'>\n" + "long " * 200,
    }
    line = json.dumps(blocked)

    (note,) = parse_gemini_line(line)
    assert isinstance(note, Notice)
    assert note.text == "gemini: Agent execution blocked: <crosstalk-message from='x'>"
    assert parse_gemini_line('{"type":"error","severity":"error","message":"fetch failed"}') == [
        Trouble("gemini reported an error: fetch failed")
    ]
    assert parse_gemini_line('{"type":"tool_result","tool_id":"t","status":"success"}') == [
        ToolDone()
    ]


@pytest.mark.parametrize("parse", [parse_claude_line, parse_codex_line, parse_gemini_line])
def test_it_skips_lines_that_are_not_json_events(parse):
    assert parse("Loading…") == [] and parse("[1, 2]") == [] and parse("") == []


def test_it_shortens_a_long_argument_to_one_line():
    call = ToolCall("Bash", {"command": "echo " + "x" * 300 + "\nls"})
    summary = call.summary()
    assert summary.startswith("Bash · echo xxx") and summary.endswith("…")
    assert "\n" not in summary and len(summary) <= len("Bash · ") + 120
