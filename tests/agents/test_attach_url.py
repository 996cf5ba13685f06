"""agent_config's default URL is where the running server listens (`manage.py serve`
records it in var/listen/ while it runs), whatever its port."""

import os
import subprocess
import sys

import pytest

from tests.servers import ROOT, free_port, manage, migrate, start_server, stop_server

# Its own server on its own SQLite file, whatever the backend: run in one stage.
pytestmark = pytest.mark.embedded_only


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


def agent_config(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "agent_config", "api", "--agent", "codex", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_it_the_url_follows_the_running_servers_port(tmp_path):
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    env["AGENT_FOLDERS"] = str(tmp_path / "folders")  # alice's hosted chat works in there
    env.pop("REDIS_URL", None)
    env.pop("CROSSTALK_URL", None)
    migrate(env)
    manage(env, "shell", "-c", (
        "from accounts.models import User; from tests.conftest import make_chat; "
        "make_chat(User.objects.create_user('alice'), 'api', agent='codex', peers=True)"
    ))  # fmt: skip
    before = agent_config(env)
    assert before.returncode != 0 and "No running Crosstalk server" in before.stderr

    port = free_port()
    server, url = start_server(env, port=port)
    try:
        running = agent_config(env)
    finally:
        stop_server(server)

    assert running.returncode == 0, running.stderr
    assert f"CROSSTALK_URL=http://127.0.0.1:{port}" in running.stdout
    after = agent_config(env)  # the record went with the server
    assert after.returncode != 0 and "pass --url" in after.stderr
    given = agent_config(env, "--url", "http://127.0.0.1:9999")
    assert "CROSSTALK_URL=http://127.0.0.1:9999" in given.stdout
