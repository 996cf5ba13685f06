"""REAL CLIs judged by how their turns really ended: a warning or an error the CLI
recovered from is a note, not a failure (Gemini taking a message as it finishes,
Codex after the model answered 500 twice); a model out of reach fails the turn
within TURN_STALL_SECONDS as "model unreachable", naming its host; a Codex
resume whose thread is gone starts a fresh session and says so."""

import shutil
import time

import pytest

from tests.agentcli.runner_site import poll, running_site, site_fixture

pytestmark = pytest.mark.agent_cli

STALL = 5
PROGRAMS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}
RUNS_SHELL = {"claude-code": "bypassPermissions", "codex": "danger-full-access", "gemini": "yolo"}


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


# Long enough for a model call held a few seconds on purpose.
site = site_fixture(TURN_STALL_SECONDS="30")


@pytest.fixture(scope="module")
def offline(tmp_path_factory, claude_cli, codex_cli, gemini_cli):
    """A site whose model went away: its port refuses every connection."""
    clis = {"claude": claude_cli, "codex": codex_cli, "gemini": gemini_cli}
    tmp = tmp_path_factory.mktemp("offline")
    with running_site(tmp, clis, TURN_STALL_SECONDS=str(STALL)) as served:
        served.fake.stop()
        yield served


def send_from_person(site, chat: dict, text: str) -> dict:
    response = site.call("POST", "/api/v1/messages", {"to_chat": chat["id"], "text": text})
    assert response.status_code == 201, response.text
    return response.json()


def turn_seconds(site, chat: dict) -> float:
    ((seconds,),) = site.query(
        "select (julianday(ended_at) - julianday(started_at)) * 86400 from chats_turn"
        " where chat_id = ? order by id desc limit 1",
        chat["id"],
    )
    return seconds


def test_it_gemini_taking_a_message_as_it_finishes_ends_idle_and_answers_it(site):
    chat = site.hosted_chat("gemini-late", "gemini", permission_mode="yolo")
    site.fake.hold_next(3)  # its one model call: the message arrives meanwhile
    site.prompt(chat, "[[say first-words]]")
    poll(site.fake.holding.is_set, "gemini's model call to be held")

    message = send_from_person(site, chat, "one more thing [[say late-answer]]")
    done = site.until(chat, "idle", "failed")

    assert done["status"] == "idle", site.notes(chat)
    assert done["last_answered"] == "late-answer"
    notes = site.entries(chat, "notice")
    assert any(note.startswith("gemini: Agent execution blocked") for note in notes), notes
    assert not any(note.startswith("The turn failed") for note in notes), notes
    read = site.call("GET", f"/api/v1/messages/{message['id']}").json()
    assert (read["state"], read["answered"]) == ("delivered", True), read


def test_it_codex_after_two_500s_from_the_model_ends_idle_with_a_note(site):
    chat = site.hosted_chat("codex-retry", "codex", permission_mode="workspace-write")
    site.fake.fail_next(500, times=2)
    site.prompt(chat, "[[say recovered]]")

    done = site.until(chat, "idle", "failed")

    assert (done["status"], done["last_answered"]) == ("idle", "recovered"), site.notes(chat)
    notes = site.entries(chat, "notice")
    assert any(note.startswith("codex: Reconnecting...") for note in notes), notes


def test_it_codex_resuming_a_thread_that_is_gone_starts_a_fresh_session(site):
    chat = site.hosted_chat("codex-moved", "codex", permission_mode="workspace-write")
    site.prompt(chat, "[[say one]]")
    assert site.until(chat, "idle", "failed")["status"] == "idle", site.notes(chat)
    old = site.session_id(chat)
    # Another worker, a new agents folder: the chat's Codex home no longer has the thread.
    shutil.rmtree(site.agents / chat["id"] / "codex-home" / "sessions")

    site.prompt(chat, "[[say two]]")
    done = site.until(chat, "idle", "failed", turns=2)

    assert (done["status"], done["last_answered"]) == ("idle", "two"), site.notes(chat)
    assert site.session_id(chat) not in ("", old)
    (note,) = site.entries(chat, "notice")
    assert note.startswith(f"`codex` no longer has this chat's session {old}")
    assert "a fresh session starts" in note
    # And it resumes the fresh one from then on.
    site.prompt(chat, "[[say three]]")
    assert site.until(chat, "idle", "failed", turns=3)["last_answered"] == "three"


@pytest.mark.parametrize("kind", ["claude-code", "gemini"])
def test_it_claude_and_gemini_resuming_a_session_they_lack_start_a_fresh_one(site, kind):
    chat = site.hosted_chat(f"{kind}-moved", kind, permission_mode=RUNS_SHELL[kind])
    site.prompt(chat, "[[say one]]")
    assert site.until(chat, "idle", "failed")["status"] == "idle", site.notes(chat)
    # As if the session lived on another machine: this one has never seen it.
    gone = "0c0c0c0c-1111-2222-3333-444444444444"
    site.query("update chats_chat set session_id = ? where id = ?", gone, chat["id"])

    site.prompt(chat, "[[say two]]")
    done = site.until(chat, "idle", "failed", turns=2)

    assert (done["status"], done["last_answered"]) == ("idle", "two"), site.notes(chat)
    assert site.session_id(chat) not in ("", gone)
    (note,) = site.entries(chat, "notice")
    assert note.startswith(f"`{PROGRAMS[kind]}` no longer has this chat's session {gone}")


@pytest.mark.parametrize("kind", ["codex", "gemini", "claude-code"])
def test_it_a_model_out_of_reach_fails_the_turn_within_the_bound(offline, kind):
    chat = offline.hosted_chat(f"{kind}-offline", kind, permission_mode=RUNS_SHELL[kind])
    started = time.monotonic()
    offline.prompt(chat, "[[say never]]")

    failed = offline.until(chat, "idle", "failed")

    assert failed["status"] == "failed", offline.notes(chat)
    (notice,) = [n for n in offline.entries(chat, "notice") if n.startswith("The turn failed")]
    assert "model unreachable" in notice, notice
    assert f"127.0.0.1:{offline.fake.port}" in notice, notice
    # Within the bound: the stall, the kill's grace and a CLI's start, not 1,800 s.
    assert turn_seconds(offline, chat) < STALL + 25, notice
    assert time.monotonic() - started < STALL + 40
    held = send_from_person(offline, chat, "still there?")
    assert (held["state"], held["detail"]) == ("queued", "held_until_you_write")


@pytest.mark.parametrize("kind", ["codex", "gemini", "claude-code"])
def test_it_a_model_out_of_reach_gives_back_the_message_that_joined_the_turn(offline, kind):
    chat = offline.hosted_chat(f"{kind}-gives-back", kind, permission_mode=RUNS_SHELL[kind])
    asker = offline.call(
        "POST", "/api/v1/chats", {"name": f"{kind}-asker", "agent": "demo", "peers": True}
    ).json()
    offline.prompt(chat, "[[say never]]")
    offline.until(chat, "failed")  # it ran (so it can be reached), and failed: it holds
    sent = offline.call(
        "POST",
        "/api/v1/messages",
        {"from_chat": asker["id"], "to_chat": chat["id"], "text": "which port?"},
    ).json()
    assert sent["reason"] == "held_until_you_write", sent

    offline.prompt(chat, "[[say never]]")  # the held message joins this turn's prompt
    failed = offline.until(chat, "failed", turns=2)

    assert failed["status"] == "failed", offline.notes(chat)
    ((given,),) = offline.query(
        "select input from chats_turn where chat_id = ? order by id desc limit 1", chat["id"]
    )
    assert "which port?" in given  # it did join the turn that failed
    message = offline.call("GET", f"/api/v1/messages/{sent['id']}").json()
    assert (message["state"], message["reason"], message["answered"]) == (
        "queued",
        "held_until_you_write",
        False,
    ), message
    (told,) = [n for n in offline.entries(asker, "notice") if "went back" in n]
    assert told.startswith(f"Your message to {kind}-gives-back went back: its turn failed")
    assert "model unreachable" in told, told
