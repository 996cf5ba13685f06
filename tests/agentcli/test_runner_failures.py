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


def test_it_stop_mid_turn_kills_the_cli_and_everything_it_started(site):
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


def test_it_a_cli_that_reports_an_error_fails_the_turn_and_the_next_prompt_runs(site):
    chat = site.hosted_chat("flaky", "claude-code", permission_mode="bypassPermissions")
    site.fake.fail_next(500)  # Claude retries nothing here (CLAUDE_CODE_MAX_RETRIES=0)
    site.prompt(chat, "[[say fine]]")

    failed = site.until(chat, "idle", "failed")

    assert failed["status"] == "failed"
    (notice,) = site.entries(chat, "notice")
    assert notice.startswith("The turn failed: claude reported an error: API Error: 500"), notice
    # The CLI's "API Error: 500 …" is the failure's reason, never the agent's answer.
    assert site.entries(chat, "answer") == []
    held = send_from_person(site, chat, "try again?")
    assert (held["state"], held["detail"]) == ("queued", "held_until_you_write")

    site.prompt(chat, "[[say fine now]]")
    again = site.until(chat, "idle", "failed", turns=2)
    assert (again["status"], again["last_answered"]) == ("idle", "fine now"), site.notes(chat)
    message = site.call("GET", f"/api/v1/messages/{held['id']}").json()
    assert (message["state"], message["detail"]) == ("delivered", "turn_prompt")


def test_it_a_model_error_is_never_sent_as_the_answer_to_a_message(site):
    chat = site.hosted_chat("erring", "claude-code", permission_mode="bypassPermissions")
    site.prompt(chat, "[[say ready]]")  # a chat that ran can be written to
    assert site.until(chat, "idle", "failed")["status"] == "idle", site.notes(chat)
    site.fake.fail_next(500)  # no retries: Claude gives up on its first model call

    sent = send_from_person(site, chat, "[[say all good]]")
    failed = site.until(chat, "idle", "failed", turns=2)

    assert failed["status"] == "failed"
    message = site.call("GET", f"/api/v1/messages/{sent['id']}").json()
    assert (message["answered"], message["answer"]) == (False, None)
    assert site.entries(chat, "answer") == ["ready"]
    # The site is shared by the module: only this chat's entries (the first test's
    # failure notice quotes an API error too).
    said = site.query(
        "select kind, text from chats_entry where chat_id = ? and text like '%API Error%'",
        chat["id"],
    )
    assert [kind for kind, _ in said] == ["notice"], said
