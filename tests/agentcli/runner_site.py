"""A real Crosstalk server whose runner starts the real CLIs against a FakeModel,
for tests/agentcli/test_runner_*.py: `manage.py serve` on a free port with its own
SQLite file and agents folder, driven through the person's REST API.

The server is another process: these tests never open the test database, and
read the server's own file (sqlite3) only to look at what the API does not show."""

import contextlib
import os
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest

from tests import servers
from tests.agentcli.clis import CODEX_KEY_VAR, claude_env, codex_env, gemini_env
from tests.agentcli.fake_model import FakeModel
from tests.browsers import chromium
from tests.servers import ROOT, free_port, migrate, private_root, start_server, stop_server

DEADLINE_SECONDS = 150
# The site person's password, for the screenshots' log-in.
PASSWORD = "alice-password-1"


@dataclass
class Site:
    url: str
    token: str
    db: Path
    work: Path
    fake: object
    names: set = field(default_factory=set)
    # The hosted CLIs' settings folders (AGENTS_DIR): one per chat.
    agents: Path | None = None

    def call(self, method: str, path: str, body=None, *, secret: str | None = None):
        headers = {"Authorization": f"Bearer {secret or self.token}"}
        return httpx2.request(method, self.url + path, json=body, headers=headers, timeout=90)

    def hosted_chat(self, name: str, agent: str, **fields) -> dict:
        folder = self.work / name
        folder.mkdir(parents=True, exist_ok=True)
        body = {"name": name, "agent": agent, "folder": str(folder), "peers": True, **fields}
        response = self.call("POST", "/api/v1/chats", body)
        assert response.status_code == 201, response.text
        return response.json()

    def prompt(self, chat: dict, text: str) -> None:
        response = self.call("POST", f"/api/v1/chats/{chat['id']}/prompts", {"text": text})
        assert response.status_code == 202, response.text

    def chat(self, chat: dict) -> dict:
        return self.call("GET", f"/api/v1/chats/{chat['id']}").json()

    def until(self, chat: dict, *statuses: str, turns: int = 1) -> dict:
        """Poll until the chat's turns ended (`turns` of them) in one of these statuses."""
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            now = self.chat(chat)
            if now["status"] in statuses and self.ended_turns(chat) >= turns:
                return now
            time.sleep(0.1)
        now = self.chat(chat)
        pytest.fail(f"{chat['name']} never became {statuses}: {now}\n{self.notes(chat)}")

    def query(self, sql: str, *args) -> list[tuple]:
        with sqlite3.connect(self.db, timeout=20) as connection:
            return connection.execute(sql, args).fetchall()

    def ended_turns(self, chat: dict) -> int:
        rows = self.query(
            "select count(*) from chats_turn where chat_id = ? and ended_at is not null",
            chat["id"],
        )
        return rows[0][0]

    def entries(self, chat: dict, kind: str) -> list[str]:
        rows = self.query(
            "select text from chats_entry where chat_id = ? and kind = ? order by id",
            chat["id"],
            kind,
        )
        return [text for (text,) in rows]

    def notes(self, chat: dict) -> str:
        return "\n".join(self.entries(chat, "notice") + self.entries(chat, "tool"))

    def session_id(self, chat: dict) -> str:
        return self.query("select session_id from chats_chat where id = ?", chat["id"])[0][0]


def screenshot_chats(site: Site, chats: list[dict], prefix: str) -> None:
    """With UPDATE_SCREENSHOTS=1: each chat's page as its person sees it, into
    docs/screenshots/PREFIX-NAME.png (Playwright and Debian's Chromium)."""
    if os.environ.get("UPDATE_SCREENSHOTS") != "1":
        return
    with chromium() as browser:
        page = browser.new_page(base_url=site.url, viewport={"width": 1440, "height": 900})
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "alice")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        for chat in chats:
            page.goto(f"/chats/{chat['id']}/")
            page.wait_for_load_state("networkidle")
            path = ROOT / "docs" / "screenshots" / f"{prefix}-{chat['name']}.png"
            page.screenshot(path=str(path), full_page=True)


def poll(check, what: str, timeout: float = DEADLINE_SECONDS):
    return servers.poll(check, what, timeout, every=0.1)


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


def site_fixture(**extra):
    """A module's `site` fixture: one served Site (and fake model) for all its tests."""

    @pytest.fixture(scope="module")
    def site(tmp_path_factory, claude_cli, codex_cli, gemini_cli):
        clis = {"claude": claude_cli, "codex": codex_cli, "gemini": gemini_cli}
        with running_site(tmp_path_factory.mktemp("site"), clis, **extra) as served:
            yield served

    return site


def site_env(tmp: Path, agents: Path, fake, clis: dict, port: int, **extra) -> dict:
    """The server's environment: what each CLI needs to reach the fake (private HOME, the
    provider's URL and key, no outside traffic), as an operator would set it."""
    home = tmp / "home"
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env |= claude_env(fake, home) | codex_env(fake, home) | gemini_env(fake, home)
    env |= {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATABASE_URL": f"sqlite:///{tmp / 'site.sqlite3'}",
        "AGENTS_DIR": str(agents),
        # Working folders lie in <root>/<username>/: alice's are in folders/alice/ (Site.work).
        "AGENT_FOLDERS": str(tmp / "folders"),
        "CROSSTALK_URL": f"http://127.0.0.1:{port}",
        "CLAUDE_BIN": str(clis["claude"]),
        "CODEX_BIN": str(clis["codex"]),
        "GEMINI_BIN": str(clis["gemini"]),
        "DEMO_STEP_SECONDS": "0.05",
        # Hosted agents get an allow-list of this environment: the fake Codex provider's
        # key is read from a variable of its own (its env_key), passed on by name.
        "AGENT_ENV_PASS": CODEX_KEY_VAR,
        # A model on this machine's loopback: under AGENT_SANDBOX=bwrap the jail reaches
        # no loopback port but Crosstalk's own unless named here.
        "AGENT_NET_ALLOW": f"127.0.0.1:{fake.port}",
        **extra,
    }
    return env


@contextlib.contextmanager
def running_site(tmp: Path, clis: dict, **extra):
    """A served Site, with its FakeModel, for the block's length. Its agents folder is
    under var/, as in use: Gemini skips a settings file below a folder others may write
    to (such as /tmp)."""
    with FakeModel() as fake:
        yield from serve(tmp, fake, clis, **extra)


def serve(tmp: Path, fake, clis: dict, **extra):
    """Serve with this fake model (a FakeModel or one of its subclasses)."""
    agents = private_root() / "test-agents" / uuid.uuid4().hex
    port = free_port()
    env = site_env(tmp, agents, fake, clis, port, **extra)
    migrate(env)
    # alice's hosted chats run here, with the operator's model logins (the fake's keys).
    token = servers.make_people(env, ["alice"], PASSWORD, runners=True, lend=True)["alice"]
    accept_messages(tmp / "site.sqlite3", "alice")
    # The last --port wins: the one CROSSTALK_URL names.
    server, _ = start_server(env, "--port", str(port))
    work = tmp / "folders" / "alice"
    work.mkdir(parents=True, exist_ok=True)
    try:
        yield Site(env["CROSSTALK_URL"], token, tmp / "site.sqlite3", work, fake, agents=agents)
    finally:
        stop_server(server)
        shutil.rmtree(agents, ignore_errors=True)


def accept_messages(db: Path, username: str) -> None:
    """These suites test delivery, so the person's chats take other chats' messages as they
    come, bypassing permission modes included (asking first has its own tests:
    tests/peers/test_inbound_approval.py, tests/agentcli/test_attach_approval_notices.py)."""
    with sqlite3.connect(db, timeout=20) as connection:
        connection.execute(
            "UPDATE accounts_user SET inbound_for_new_chats = 'accept',"
            " ask_when_more_permissive = 0 WHERE username = ?",
            [username],
        )
