"""REAL CLIs failing under Crosstalk's runner, clearly and losing nothing: Stop
mid-turn kills the whole process group, a turn past the time limit fails, and a
CLI that reports an error fails its turn; messages are held for the person."""

import os
from pathlib import Path

import pytest

from tests.agentcli.runner_site import poll, site_fixture

pytestmark = pytest.mark.agent_cli

TIME_LIMIT = 45


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture(TURN_TIMEOUT_SECONDS=str(TIME_LIMIT))


def processes_in(folder: Path) -> list[int]:
    """Processes working in this folder (the CLI and whatever it started there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd") == str(folder):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def send_from_person(site, chat: dict, text: str) -> dict:
    response = site.call("POST", "/api/v1/messages", {"to_chat": chat["id"], "text": text})
    assert response.status_code == 201, response.text
    return response.json()


def test_stop_mid_turn_kills_the_cli_and_everything_it_started(site):
    chat = site.hosted_chat("sleeper", "claude-code", permission_mode="bypassPermissions")
    folder = site.work / "sleeper"
    site.prompt(chat, "[[bash tail -f /dev/null]]\n[[say never]]")
    poll(lambda: site.entries(chat, "tool"), "the shell step to start")
    poll(lambda: len(processes_in(folder)) >= 2, "claude and its shell step")

    stopped = site.call("POST", f"/api/v1/chats/{chat['id']}/stop").json()

    assert stopped["status"] == "stopped"
    poll(lambda: not processes_in(folder), "every process of the turn to end", timeout=20)
    assert site.chat(chat)["status"] == "stopped"
    held = send_from_person(site, chat, "still there?")
    assert (held["state"], held["detail"]) == ("queued", "held_until_you_write")


def test_a_turn_past_the_time_limit_fails_with_its_group_killed(site):
    # Claude's Bash waits up to 2 minutes for a command (Codex stops one after 10 s).
    chat = site.hosted_chat("slow", "claude-code", permission_mode="bypassPermissions")
    folder = site.work / "slow"
    site.prompt(chat, "[[bash tail -f /dev/null]]\n[[say never]]")

    failed = site.until(chat, "idle", "failed")

    assert failed["status"] == "failed"
    assert site.entries(chat, "notice") == [
        f"The turn failed: `claude` ran past {TIME_LIMIT} s and was stopped"
    ]
    poll(lambda: not processes_in(folder), "every process of the turn to end", timeout=20)


def test_a_cli_that_reports_an_error_fails_the_turn_and_the_next_prompt_runs(site):
    chat = site.hosted_chat("flaky", "claude-code", permission_mode="bypassPermissions")
    site.fake.fail_next(500)  # Claude retries nothing here (CLAUDE_CODE_MAX_RETRIES=0)
    site.prompt(chat, "[[say fine]]")

    failed = site.until(chat, "idle", "failed")

    assert failed["status"] == "failed"
    (notice,) = site.entries(chat, "notice")
    assert notice.startswith("The turn failed: claude reported an error:"), notice
    held = send_from_person(site, chat, "try again?")
    assert (held["state"], held["detail"]) == ("queued", "held_until_you_write")

    site.prompt(chat, "[[say fine now]]")
    again = site.until(chat, "idle", "failed", turns=2)
    assert (again["status"], again["last_answered"]) == ("idle", "fine now"), site.notes(chat)
    message = site.call("GET", f"/api/v1/messages/{held['id']}").json()
    assert (message["state"], message["detail"]) == ("delivered", "turn_prompt")
