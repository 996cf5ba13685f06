"""A REAL Claude Code turn past the time limit fails, with its whole process group
killed. On a server of its own with a short limit (TURN_TIMEOUT_SECONDS), so the test
waits seconds, not the longer limit the other real-CLI turns need under load."""

import pytest

from tests.agentcli.runner_site import poll, processes_in, site_fixture

pytestmark = pytest.mark.agent_cli

# Claude reaches its shell step in 3-5 s here; the limit leaves room for a loaded machine.
TIME_LIMIT = 15


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture(TURN_TIMEOUT_SECONDS=str(TIME_LIMIT))


def test_it_a_turn_past_the_time_limit_fails_with_its_group_killed(site):
    # Claude's Bash waits up to 2 minutes for a command (Codex stops one after 10 s).
    chat = site.hosted_chat("slow", "claude-code", permission_mode="bypassPermissions")
    folder = site.work / "slow"
    site.prompt(chat, "[[bash tail -f /dev/null]]\n[[say never]]")
    poll(lambda: len(processes_in(folder)) >= 2, "claude and its shell step")

    failed = site.until(chat, "idle", "failed")

    assert failed["status"] == "failed"
    assert site.entries(chat, "notice") == [
        f"The turn failed: `claude` ran past {TIME_LIMIT} s and was stopped"
    ]
    assert site.entries(chat, "tool"), "the shell step ran before the limit"
    poll(lambda: not processes_in(folder), "every process of the turn to end", timeout=20)
