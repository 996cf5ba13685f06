"""Stop during a REAL CLI's shell step ends the step too, whatever process group or
session the CLI put it in. Gemini starts each `run_shell_command` in a process group
of its own: killing the turn's group left its `sleep` running under PID 1 until it
ended by itself; the runner's reaper (agents/reaper.py) ends it now. Claude's and
Codex's steps stay in the turn's group: checked alike."""

import os
import random

import pytest

from tests.agentcli.runner_site import poll, processes_in, site_fixture
from tests.agents.conftest import marked

pytestmark = pytest.mark.agent_cli

# Claude's Bash refuses a long `sleep`: its step follows /dev/null (and a file that
# is not there, named by the marker) instead.
STEP = {"gemini": "sleep {}", "codex": "sleep {}", "claude-code": "tail -f /dev/null {}"}
RUNS_SHELL = {"claude-code": "bypassPermissions", "codex": "danger-full-access", "gemini": "yolo"}


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture()


@pytest.mark.parametrize("kind", ["gemini", "claude-code", "codex"])
def test_it_stop_during_a_shell_step_leaves_no_process_of_the_step(site, kind):
    marker = f"3000.{random.randrange(10**14, 10**15)}"  # an argument no other process has
    chat = site.hosted_chat(f"steps-{kind}", kind, permission_mode=RUNS_SHELL[kind])
    folder = site.work / chat["name"]
    site.prompt(chat, f"[[bash {STEP[kind].format(marker)}]]\n[[say never]]")
    poll(lambda: marked(marker), "the shell step's command to start")
    if kind == "gemini":  # the premise: its step runs in a process group of its own
        assert len({os.getpgid(pid) for pid in processes_in(folder)}) > 1

    stopped = site.call("POST", f"/api/v1/chats/{chat['id']}/stop").json()

    assert stopped["status"] == "stopped"
    poll(lambda: not marked(marker), "the shell step's command to end", timeout=15)
    assert site.chat(chat)["status"] == "stopped"
    poll(lambda: not processes_in(folder), "every process of the turn to end", timeout=15)
