"""Real server processes for tests that drive Crosstalk from outside: `manage.py`
commands and `manage.py serve` on a free port of 127.0.0.1, each with the env given
(its own SQLite file, say), so such tests never share the test database."""

import atexit
import json
import os
import selectors
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READY_LINE = "Crosstalk is running at"


def private_root() -> Path:
    """Where live-site tests keep the CLIs' generated settings: var/ of the checkout,
    unless a folder above it may be written by others (a clone under /tmp), which
    makes Gemini skip a settings file; then a folder of the user's own."""
    from kernel.env import private_dir

    fallback = Path.home() / ".cache" / "crosstalk" / "test-sites"
    root = private_dir("CROSSTALK_TEST_SITES", ROOT / "var", fallback)
    root.mkdir(parents=True, exist_ok=True)
    return root


START_SECONDS = 30


def poll(check, what: str, timeout: float = 20, every: float = 0.05):
    """Call check() until it gives something truthy, and return that; fail the test
    past the deadline (a hard deadline, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout} s waiting for {what}")
        time.sleep(every)
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> str:
    """Runs a manage.py command to its end; its output, or the test fails."""
    done = subprocess.run(  # noqa: S603 (our own manage.py with fixed arguments)
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        pytest.fail(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


PEOPLE = """
import json
from accounts.actions import do_allow_runners, do_create_api_token, do_lend_logins
from accounts.models import User
made = {{}}
for name in {names!r}:
    user = User.objects.create_user(name, password={password!r})
    if {runners!r}:
        do_allow_runners(user, allowed=True)
    if {lend!r}:
        do_lend_logins(user, lent=True)
    made[name] = do_create_api_token(user, name="tests")[1]
print(json.dumps(made))
"""


def make_people(
    env: dict[str, str],
    names: list[str],
    password: str,
    *,
    runners: bool = False,
    lend: bool = False,
) -> dict[str, str]:
    """Accounts with this password on env's database (allowed to run hosted agents with
    `runners`, lent the operator's model logins with `lend`), and an API token of each
    (name → token): what `create_api_token NAME --create-user --password`, `allow_runners
    NAME` and `lend_logins NAME` make, for many names in one process instead of a process
    (0.45 s of CPU) for each step of each."""
    code = PEOPLE.format(names=names, password=password, runners=runners, lend=lend)
    return json.loads(manage(env, "shell", "-c", code).strip().splitlines()[-1])


_migrated: list[Path] = []


def migrate(env: dict[str, str]) -> None:
    """`manage.py migrate` for env's fresh SQLite DATABASE_URL, in a copy of one file this
    process migrated once (the same tables, without the seconds each time). The test
    database itself is still built by running the migrations."""
    path = Path(env["DATABASE_URL"].removeprefix("sqlite:///"))
    if not _migrated:
        folder = Path(tempfile.mkdtemp(prefix="crosstalk-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = folder / "db.sqlite3"
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        manage(env | {"DATABASE_URL": f"sqlite:///{template}"}, "migrate", "--noinput", "-v0")
        _migrated.append(template)
    # The backup API copies a consistent database whatever its journal (WAL) holds.
    with sqlite3.connect(_migrated[0]) as source, sqlite3.connect(path) as copy:
        source.backup(copy)
    copy.close()
    source.close()


def start_server(
    env: dict[str, str], *args: str, port: int | None = None
) -> tuple[subprocess.Popen, str]:
    """`manage.py serve` on a free port (or `port`), once it says it listens: the
    process and its URL."""
    port = port or free_port()
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "serve", "--port", str(port), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so stop_server() reaches all of it
    )
    try:
        wait_until_ready(server)
    except BaseException:
        stop_server(server)
        raise
    return server, f"http://127.0.0.1:{port}"


def wait_until_ready(server: subprocess.Popen) -> None:
    """Reads the server's output until it says it listens (no sleeping, a hard deadline)."""
    deadline = time.monotonic() + START_SECONDS
    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(server.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0 and selector.select(left):
            line = server.stdout.readline()
            seen.append(line)
            if READY_LINE in line:
                return
            if not line:
                break
    pytest.fail("the server did not start:\n" + "".join(seen))


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    server.stdout.close()


class Crosstalk:
    """A live server and the REST calls made to it (the attach tests)."""

    def __init__(self, url: str, env: dict, token: str, user: str = ""):
        self.url, self.env, self.token, self.user = url, env, token, user

    def call(self, method: str, path: str, body=None, *, key: str | None = None) -> dict:
        request = urllib.request.Request(  # noqa: S310 (our own server on 127.0.0.1)
            self.url + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={
                "Authorization": f"Bearer {key or self.token}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return json.loads(response.read())

    def new_chat(self, name: str, agent: str) -> dict:
        return self.call("POST", "/api/v1/chats", {"name": name, "agent": agent, "peers": True})

    def send(self, sender_key: str, to: str, text: str) -> dict:
        body = {"to": to, "text": text, "wait_seconds": 0}
        return self.call("POST", "/api/v1/agent/messages", body, key=sender_key)

    def message(self, message_id: str) -> dict:
        return self.call("GET", f"/api/v1/messages/{message_id}")

    def chat(self, chat_id: str) -> dict:
        return self.call("GET", f"/api/v1/chats/{chat_id}")

    def wait_for(self, check, what: str, timeout: float = 20):
        return poll(check, what, timeout)

    def agent_config(self, chat: str, agent: str, folder: Path, home: Path, *flags: str) -> str:
        """What a person runs (as that person: HOME, CODEX_HOME; without --url the URL
        is the running server's): writes the files and prints the key."""
        env = {k: v for k, v in self.env.items() if k != "CROSSTALK_URL"}
        env |= {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
        who = ["--user", self.user] if self.user else []
        args = ["--agent", agent, *who, "--write", str(folder), *flags]
        out = manage(env, "agent_config", chat, *args)
        return next(line for line in out.splitlines() if line.startswith("Key: "))[5:]
