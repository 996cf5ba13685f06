"""Three personas: the owner, a second chat of the owner, an outsider."""

import json
import os
import shutil
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.test import Client

from accounts.actions import do_allow_runners, do_create_api_token, do_lend_logins
from accounts.models import User
from chats import folders
from chats.actions import check_create_chat
from chats.inputs import ChatCreate
from chats.runners import runs_on_server
from tests.reliability.procs import RedisServer
from tests.servers import private_root

# fake_model, claude_cli, codex_cli, gemini_cli, … (see tests/agentcli/README.md)
pytest_plugins = ["tests.agentcli.fixtures"]


# Suites that start their own server on its own SQLite file (and so test the same thing
# whatever DATABASE_URL says); `.ci/run` runs them in its first stage only.
OWN_SERVER_SUITES = ("tests/agentcli/", "tests/e2e/")
DB_FIXTURES = {"db", "transactional_db", "django_db_setup"}


def pytest_configure(config):
    """Under pytest-xdist each worker has its own test database (named by its pid); give it
    its own channel-layer prefix too, so one worker's pushes never reach another's tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    layer = settings.CHANNEL_LAYERS["default"]
    if worker and "CONFIG" in layer:
        layer["CONFIG"]["prefix"] = f"{layer['CONFIG']['prefix']}-{worker}"


# The slowest suites (real CLIs, browsers, server processes) run first: under xdist a
# long module started last would run alone on one core while the other idles.
SLOW_FIRST = (
    "tests/agentcli/",
    "tests/e2e/",
    "tests/api/test_fuzz",
    "tests/reliability/",
    "tests/test_bench_quick",
    "tests/peers/test_mcp_live",
    "tests/peers/test_admin_browser",
    "tests/origins/test_a2a",
)


def slowness(item) -> int:
    path = item.nodeid.replace("\\", "/")
    return next((i for i, slow in enumerate(SLOW_FIRST) if path.startswith(slow)), len(SLOW_FIRST))


def pytest_collection_modifyitems(config, items):
    items.sort(key=slowness)  # stable: each module keeps its own order
    if os.environ.get("CROSSTALK_SECOND_STAGE") == "1":
        skip_own_server_suites(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, slowest modules first, long ones spread (tests/scheduling.py)."""
    if config.getvalue("dist") == "loadfile":
        from tests.scheduling import ModuleScheduling

        return ModuleScheduling(config, log)
    return None


def skip_own_server_suites(items):
    skip = pytest.mark.skip(
        reason="runs on its own SQLite server whatever the backend: ran in the first stage"
    )
    for item in items:
        path = item.nodeid.replace("\\", "/")
        own_server = path.startswith(OWN_SERVER_SUITES) or item.get_closest_marker("embedded_only")
        if own_server and not DB_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    """Say plainly what was skipped and why, one line per reason with a count."""
    skipped = defaultdict(list)
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        skipped[str(reason).removeprefix("Skipped: ")].append(report.nodeid)
    if skipped:
        terminalreporter.section("skipped, by reason")
    for reason, ids in sorted(skipped.items(), key=lambda item: -len(item[1])):
        more = f" and {len(ids) - 1} more" if len(ids) > 1 else ""
        terminalreporter.write_line(f"{len(ids):4d} skipped: {reason} (e.g. {ids[0]}{more})")


@pytest.fixture(autouse=True)
async def release_db_thread_connection():
    """Async code reaches the ORM through asgiref's one sync thread, which keeps its
    own connection: hand it back, or PostgreSQL cannot drop the test database."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture(autouse=True)
def no_runner_in_tests(settings):
    # Tests drive the runner themselves; the ASGI app must not start one.
    settings.TURNS_IN_PROCESS = False


# The CLI agent kinds, and the variable that points at each one's program.
CLI_BINS = {"claude-code": "CLAUDE_BIN", "codex": "CODEX_BIN", "gemini": "GEMINI_BIN"}
STAND_IN = "#!/bin/sh\necho 'a stand-in CLI: this test runs no real agent' >&2\nexit 3\n"


@pytest.fixture(autouse=True)
def stand_in_clis(monkeypatch, tmp_path_factory, settings):
    """Chats of the CLI kinds can be created in any test: each CLI is a stand-in that
    fails its turns, unless a test points CLAUDE_BIN (…) at a real one."""
    program = tmp_path_factory.getbasetemp() / "stand-in-cli"
    if not program.exists():
        program.write_text(STAND_IN)
        program.chmod(0o755)
    for variable in CLI_BINS.values():
        monkeypatch.setenv(variable, str(program))
    # Hosted CLIs' settings must be private: not under /tmp, which anyone may write.
    agents = private_root() / "test-agents" / uuid.uuid4().hex
    settings.AGENTS_DIR = agents
    yield
    shutil.rmtree(agents, ignore_errors=True)


@pytest.fixture(autouse=True)
def agent_folders(settings, tmp_path_factory) -> Path:
    """Working folders lie inside <root>/<username>/ (chats.folders): each test has a root
    of its own, set as an operator sets AGENT_FOLDERS."""
    root = Path(os.path.realpath(tmp_path_factory.mktemp("folders")))
    settings.AGENT_FOLDERS = [root]
    return root


def own_folder(user, name: str = "work") -> Path:
    """A folder of the account's own, made: <root>/<username>/<name>."""
    folder = Path(folders.roots()[0], user.get_username(), name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def workdir(owner) -> Path:
    """The owner's working folder for hosted and command chats: <root>/alice/work."""
    return own_folder(owner)


@pytest.fixture
def redis_server():
    """A private redis-server of the test's own on a free port, for tests that stop it
    or must see only their own keys."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


def make_chat(user, name: str, **fields):
    if fields.get("agent") in CLI_BINS:
        fields.setdefault("folder", str(own_folder(user)))
    if runs_on_server(fields.get("agent", "demo"), fields.get("folder", "")):
        do_allow_runners(user, allowed=True)  # hosted and command chats need agents.run_hosted
    if fields.get("agent") in CLI_BINS and fields["folder"]:
        do_lend_logins(user, lent=True)  # the test's operator's model logins (the fake's key)
    chat, key = check_create_chat(user, spec=ChatCreate(name=name, **fields))
    chat.agent_key = key
    return chat


@pytest.fixture
def owner(db):
    return User.objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def outsider(db):
    return User.objects.create_user("mallory", password="mallory-password-1")


@pytest.fixture
def runner_owner(owner):
    """The owner, allowed to run hosted and command chats (agents.run_hosted)."""
    do_allow_runners(owner, allowed=True)
    return owner


@pytest.fixture
def chat(owner):
    """The owner's chat; `chat.agent_key` holds its secret."""
    return make_chat(owner, "checkout", repository="shop-web", branch="feat/cart", peers=True)


@pytest.fixture
def other_chat(owner):
    return make_chat(owner, "payments-api", repository="payments", branch="main", peers=True)


@pytest.fixture
def outsider_chat(outsider):
    return make_chat(outsider, "secret", repository="theirs", branch="main", peers=True)


class ApiClient(Client):
    """A test client that speaks JSON with a bearer secret."""

    def __init__(self, secret: str, **kwargs):
        super().__init__(HTTP_AUTHORIZATION=f"Bearer {secret}", **kwargs)

    def call(self, method: str, path: str, data=None):
        body = json.dumps(data) if data is not None else ""
        return self.generic(method, path, body, content_type="application/json")


@pytest.fixture
def owner_api(owner):
    _, secret = do_create_api_token(owner, name="tests")
    return ApiClient(secret)


@pytest.fixture
def outsider_api(outsider):
    _, secret = do_create_api_token(outsider, name="tests")
    return ApiClient(secret)


@pytest.fixture
def agent_api(chat):
    return ApiClient(chat.agent_key)


@pytest.fixture
def owner_client(owner):
    client = Client()
    client.force_login(owner)
    return client


@pytest.fixture
def outsider_client(outsider):
    client = Client()
    client.force_login(outsider)
    return client
