"""REAL CLIs failing under Crosstalk's runner, clearly and losing nothing: Stop
mid-turn kills the whole process group, and a CLI that reports an error fails its
turn; messages are held for the person. (A turn past the time limit:
test_runner_time_limit.py, on a server with a short limit.)"""

import pytest

from tests.agentcli.runner_site import poll, processes_in, site_fixture

pytestmark = pytest.mark.agent_cli


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture()


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
