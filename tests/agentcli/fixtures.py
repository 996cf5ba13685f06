"""Fixtures for tests that run the real agent CLIs against the fake model.

Registered suite-wide from tests/conftest.py (`pytest_plugins`), so a test anywhere
can ask for `fake_model`, `claude_cli`, `codex_cli`, `gemini_cli`, `cli_home`,
`cli_workdir`. A test using a CLI fixture is marked `agent_cli` automatically
(`-m "not agent_cli"` leaves them out).
"""

import pytest

from tests.agentcli.clis import CliUnavailable, find_cli
from tests.agentcli.fake_model import FakeModel

CLI_FIXTURES = {"claude_cli", "codex_cli", "gemini_cli"}


def pytest_collection_modifyitems(items):
    for item in items:
        if CLI_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.agent_cli)


@pytest.fixture
def fake_model():
    """A FakeModel serving on 127.0.0.1 for the test's length."""
    with FakeModel() as fake:
        yield fake


def _cli_or_skip(name: str):
    try:
        return find_cli(name)
    except CliUnavailable as why:
        pytest.skip(f"agent CLI unavailable: {why}")


@pytest.fixture(scope="session")
def claude_cli():
    """Path of the pinned `claude` binary; skips with the reason when unavailable."""
    return _cli_or_skip("claude")


@pytest.fixture(scope="session")
def codex_cli():
    return _cli_or_skip("codex")


@pytest.fixture(scope="session")
def gemini_cli():
    return _cli_or_skip("gemini")


@pytest.fixture
def cli_home(tmp_path):
    """A private HOME for the CLI under test."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def cli_workdir(tmp_path):
    """The folder the CLI runs in (its project / cwd)."""
    work = tmp_path / "work"
    work.mkdir()
    return work
