"""The same hosted turns of the REAL Claude Code, Codex and Gemini as
test_runner_turns.py, with AGENT_SANDBOX=bwrap: each CLI runs jailed (its folder,
its own home, the system read-only, no var/, a PID namespace of its own) and still
runs its shell step, calls the crosstalk tools and resumes its session."""

import shutil

import pytest

from tests.agentcli.runner_site import site_fixture
from tests.agentcli.test_runner_turns import (  # the tests themselves, run on this site
    test_it_a_hosted_turn_gets_the_crosstalk_tools_with_its_turns_key,
    test_it_runs_a_hosted_turn_and_resumes_its_session,
)

pytestmark = [
    pytest.mark.agent_cli,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]
__all__ = [
    "test_it_a_hosted_turn_gets_the_crosstalk_tools_with_its_turns_key",
    "test_it_runs_a_hosted_turn_and_resumes_its_session",
]


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture(AGENT_SANDBOX="bwrap")
