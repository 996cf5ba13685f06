"""Schemathesis against a live server: no server errors, and every answer (refusals
included) matches /api/v1/openapi.json — status, content type, headers and body."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.actions import do_create_api_token
from tests.conftest import make_chat
from tests.peers.conftest import reachable
from tests.reliability.procs import Proc, database_url, free_port, http, stop_all

CONFIG = Path(__file__).with_name("schemathesis.toml")
ST = Path(sys.executable).with_name("st")
EXAMPLES = os.environ.get("SCHEMATHESIS_EXAMPLES", "25")
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261201")

pytestmark = pytest.mark.skipif(
    not ST.exists() and not shutil.which("st"),
    reason="needs schemathesis (pip install -e '.[dev]')",
)


@pytest.fixture
def live(transactional_db, owner, tmp_path):
    """A web process (no turn runner) on the test database, and what the fuzzing uses."""
    chat = make_chat(owner, "checkout", peers=True)
    other = make_chat(owner, "payments-api", peers=True)
    reachable(chat, other)
    _, token = do_create_api_token(owner, name="fuzz")
    port = free_port()
    env = {"DATABASE_URL": database_url(), "REDIS_URL": ""}
    web = Proc("web", ["serve", "--port", str(port), "--no-runner"], env, tmp_path)
    web.wait_for_line("Crosstalk is running")
    variables = {
        "CROSSTALK_PERSON_TOKEN": token,
        "CROSSTALK_AGENT_KEY": chat.agent_key,
        "CROSSTALK_CHAT": other.pk,
    }
    yield f"http://127.0.0.1:{port}", variables, web
    stop_all([web])


def test_it_every_answer_matches_the_schema(live, tmp_path):
    url, variables, web = live
    command = [
        str(ST) if ST.exists() else "st",
        "--config-file",
        str(CONFIG),
        "run",
        f"{url}/api/v1/openapi.json",
        "--checks",
        "all",
        # Schema-valid input may still be refused, by rules a schema cannot say: a name
        # taken, blank text, NUL bytes, a chat out of reach, a limit reached; each such
        # refusal has its stable code, and its status is in the schema.
        "--exclude-checks",
        "positive_data_acceptance",
        "--max-examples",
        EXAMPLES,
        "--seed",
        SEED,
        "--workers",
        "2",
        "--request-timeout",
        "20",
        "--no-color",
    ]
    done = subprocess.run(  # noqa: S603 (our own command line)
        command,
        env={**os.environ, **variables},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report + "\n--- server ---\n" + web.output()[-4000:]
    _, document = http("GET", f"{url}/api/v1/openapi.json")
    operations = sum(len(methods) for methods in document["paths"].values())
    assert f"Tested: {operations}" in report, report  # every operation, none filtered out
    assert "Internal Server Error" not in web.output()
