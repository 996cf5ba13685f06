"""Hosted turns of the REAL Claude Code, Codex and Gemini, run by Crosstalk's runner
inside a real server, scripted through the fake model: the shell step really runs
in the chat's folder, the final text is the answer in the conversation, and the
second turn resumes the same session, and Claude's answer shows as it grows."""

import pytest

from tests.agentcli.runner_site import poll, site_fixture

pytestmark = pytest.mark.agent_cli

# The permission mode each CLI needs to run a shell step headless with nobody to ask.
RUNS_SHELL = {"claude-code": "bypassPermissions", "codex": "danger-full-access", "gemini": "yolo"}
API = {"claude-code": "anthropic", "codex": "openai", "gemini": "gemini"}


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture()


@pytest.mark.parametrize("kind", ["claude-code", "codex", "gemini"])
def test_it_runs_a_hosted_turn_and_resumes_its_session(site, kind):
    chat = site.hosted_chat(f"{kind}-worker", kind, permission_mode=RUNS_SHELL[kind])
    folder = site.work / chat["name"]

    # A prompt may start like an option (a Markdown list): it is still the prompt.
    script = f"[[bash echo proof-{kind} > proof.txt]]\n[[say first-{kind}-done]]"
    site.prompt(chat, f"- first, this:\n{script}")
    first = site.until(chat, "idle", "failed")

    assert first["status"] == "idle", site.notes(chat)
    assert first["last_answered"] == f"first-{kind}-done"
    assert (folder / "proof.txt").read_text().strip() == f"proof-{kind}"
    assert site.entries(chat, "answer")[-1] == f"first-{kind}-done"
    assert site.entries(chat, "tool"), "the shell step shows in the conversation"
    session = site.session_id(chat)
    assert session

    site.prompt(chat, f"[[say second-{kind}-done]]")
    second = site.until(chat, "idle", "failed", turns=2)

    assert second["status"] == "idle", site.notes(chat)
    assert second["last_answered"] == f"second-{kind}-done"
    assert site.session_id(chat) == session
    # Resumed: the model's last request carries the first turn's conversation.
    last_call = site.fake.model_calls(API[kind])[-1]
    assert f"first-{kind}-done" in last_call.raw
    exit_codes = site.query(
        "select exit_code from chats_turn where chat_id = ? order by id", chat["id"]
    )
    assert exit_codes == [(0,), (0,)]


@pytest.mark.parametrize("kind", ["claude-code", "codex", "gemini"])
def test_it_a_hosted_turn_gets_the_crosstalk_tools_with_its_turns_key(site, kind):
    chat = site.hosted_chat(f"{kind}-caller", kind, permission_mode=RUNS_SHELL[kind])
    # A refusal (no such chat) carries no directives the fake model would follow.
    call = '[[call MessageChat {"to": "chat_nobody", "text": "hello?"}]]'

    site.prompt(chat, f"{call}\n[[say asked]]")
    done = site.until(chat, "idle", "failed")

    assert (done["status"], done["last_answered"]) == ("idle", "asked"), site.notes(chat)
    (tool,) = site.entries(chat, "tool")
    assert tool.split(" · ")[0] in {"mcp__crosstalk__MessageChat", "mcp_crosstalk_MessageChat"}
    # The server took the turn's key and answered: Crosstalk's own refusal reached the model.
    assert any("no_chat" in shown for shown in site.fake.tool_results(API[kind])), (
        site.fake.tool_results(API[kind])
    )


def test_it_shows_claudes_answer_as_it_grows_then_once_whole(site):
    chat = site.hosted_chat("streamer", "claude-code", permission_mode="bypassPermissions")
    answer = "Streamed in pieces: alpha, beta, gamma, delta and at last epsilon."
    # The final text comes in 5 text deltas; the last is held until the test lets it go.
    release = site.fake.stream_next(chunks=5, pause=0.2)
    try:
        site.prompt(chat, f"[[bash echo a step first]]\n[[say {answer}]]")
        what = "the answer's first words while its last piece is still held"
        (growing,) = poll(lambda: site.entries(chat, "answer"), what, timeout=60)
    finally:
        release.set()

    assert growing and answer.startswith(growing) and growing != answer
    done = site.until(chat, "idle", "failed")
    assert (done["status"], done["last_answered"]) == ("idle", answer), site.notes(chat)
    # The growing entry became the whole answer: once, after the step, nothing lost.
    assert site.entries(chat, "answer") == [answer]
    kinds = site.query(
        "select kind from chats_entry where chat_id = ? and kind != 'prompt' order by id",
        chat["id"],
    )
    assert kinds == [("tool",), ("answer",)]
