"""The directive parser and the stateless choice of the next step (no CLI, fast)."""

from tests.agentcli.script import Directive, Event, next_step, parse_directives


def test_it_parses_one_directive_per_line_in_order():
    text = (
        'hello\n[[bash echo hi > out.txt]]\n[[call MessageChat {"to": "b", "text": "x"}]]\n'
        "[[say ok]]"
    )

    assert parse_directives(text) == [
        Directive("bash", "echo hi > out.txt"),
        Directive("call", "MessageChat", {"to": "b", "text": "x"}),
        Directive("say", "ok"),
    ]


def test_it_parses_several_directives_on_one_line():
    text = 'hi [[call Bash {"command": "echo hi"}]] [[call echo {"text": "a ]] b"}]] tail'

    assert parse_directives(text) == [
        Directive("call", "Bash", {"command": "echo hi"}),
        Directive("call", "echo", {"text": "a ]] b"}),
    ]


def test_it_keeps_brackets_inside_a_bash_command():
    assert parse_directives("[[bash [[ -f out.txt ]] && echo yes]]") == [
        Directive("bash", "[[ -f out.txt ]] && echo yes")
    ]


def test_it_takes_a_call_without_arguments_and_skips_bad_json():
    assert parse_directives("[[call ListChats]]\n[[call X {not json}]]") == [
        Directive("call", "ListChats", {})
    ]


def test_it_ignores_text_without_directives():
    assert parse_directives("[[maybe later]] [not one] [[bash unclosed") == []


def prompt(text: str) -> Event:
    return Event("text", text)


def test_it_answers_the_next_directive_after_the_calls_already_made():
    script = prompt("[[bash one]]\n[[call echo {}]]\n[[say bye]]")

    assert next_step([script]).directive == Directive("bash", "one")
    calls = [script, Event("call", name="Bash"), Event("result", "out")]
    assert next_step(calls).directive == Directive("call", "echo", {})
    assert next_step([*calls, Event("call", name="echo"), Event("result", "")]).text == "bye"


def test_it_does_not_count_tool_search_as_a_step():
    events = [prompt("[[call echo {}]]"), Event("call", name="ToolSearch"), Event("result", "")]

    assert next_step(events).directive == Directive("call", "echo", {})


def test_it_repeats_the_last_say_or_done_when_directives_run_out():
    events = [prompt("[[bash a]]\n[[say first]]\n[[say last]]"), Event("call", name="Bash")]

    assert next_step([*events, Event("call", name="Bash")]).text == "last"
    assert next_step([prompt("[[bash a]]"), Event("call", name="Bash")]).text == "done"


def test_it_follows_the_latest_user_side_text_that_holds_directives():
    events = [
        prompt("[[bash a]]\n[[say first]]"),
        Event("call", name="Bash"),
        Event("result", "a\n<system-reminder>[[say from a hook]]</system-reminder>"),
        Event("context", "no directives here"),
    ]

    assert next_step(events).text == "from a hook"
    stop_feedback = prompt("Stop hook feedback:\n[[call ReadChat {}]]")
    assert next_step([*events, stop_feedback]).directive == Directive("call", "ReadChat", {})


def test_it_echoes_the_first_line_when_nothing_is_scripted():
    events = [prompt("<system-reminder>x</system-reminder>"), prompt("\n  what is up?\nmore")]

    assert next_step(events).text == "Fake model saw: what is up?"
