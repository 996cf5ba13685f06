"""MCP over the real transports, with the SDK's own client: streamable HTTP against
`manage.py serve` on a free port (its own SQLite file), and stdio against
`manage.py mcp_stdio` as a subprocess, local and relayed.

The servers are other processes: this module never opens the test database."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from django.conf import settings
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.peers.test_mcp_tools import AGENT_TOOLS, PERSON_TOOLS
from tests.servers import ROOT, manage, migrate, poll, start_server, stop_server

ANSWER_SECONDS = 5


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


# The server processes ----------------------------------------------------------


@dataclass(frozen=True)
class Site:
    url: str
    env: dict[str, str]
    token: str  # the person's API token
    sender: dict  # a chat that ran (reachable), with its agent_key
    recipient: dict


def embedded_env(db_path: Path) -> dict[str, str]:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db_path}", DEMO_STEP_SECONDS="0.05")
    env.pop("REDIS_URL", None)
    return env


def rest(site_url: str, secret: str, method: str, path: str, body=None) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {secret}"}
    return httpx2.request(method, site_url + path, json=body, headers=headers, timeout=30)


def ran_chat(url: str, token: str, name: str) -> dict:
    """A demo chat that has run (so it is within reach), with its agent key."""
    created = rest(url, token, "POST", "/api/v1/chats", {"name": name, "peers": True})
    assert created.status_code == 201, created.text
    chat = created.json()
    assert rest(
        url, token, "POST", f"/api/v1/chats/{chat['id']}/prompts", {"text": "hi"}
    ).is_success

    def idle_after_a_turn():
        now = rest(url, token, "GET", f"/api/v1/chats/{chat['id']}").json()
        return now["last_ran_at"] and now["status"] == "idle"

    poll(idle_after_a_turn, f"{name}'s first turn")
    return chat


def prepared_env(tmp: Path, **extra: str) -> tuple[dict[str, str], str]:
    """A fresh SQLite file, migrated, with one person and their API token."""
    env = {**embedded_env(tmp / "db.sqlite3"), **extra}
    migrate(env)
    token = manage(env, "create_api_token", "mcp-user", "--create-user").strip().splitlines()[-1]
    return env, token


def open_site(env: dict[str, str], token: str, url: str) -> Site:
    sender, recipient = (ran_chat(url, token, name) for name in ("checkout", "payments"))
    return Site(url, env, token, sender, recipient)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    env, token = prepared_env(tmp_path_factory.mktemp("mcp"))
    server, url = start_server(env)
    try:
        yield open_site(env, token, url)
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def redis_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, str]]:
    """Two web processes on one database and one Redis: the site, and the other's URL."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: two server processes meet on Redis")
    prefix = f"t-mcp-{uuid.uuid4().hex[:8]}"
    env, token = prepared_env(
        tmp_path_factory.mktemp("mcp-redis"), REDIS_URL=os.environ["REDIS_URL"], REDIS_PREFIX=prefix
    )
    first, first_url = start_server(env)
    try:
        second, second_url = start_server(env, "--no-runner")
        try:
            yield open_site(env, token, first_url), second_url
        finally:
            stop_server(second)
    finally:
        stop_server(first)


# The clients -------------------------------------------------------------------


def http_client(url: str, secret: str, *, mode: str = "auto") -> Client:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {secret}"}, timeout=httpx2.Timeout(30, read=120)
    )
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode)


def stdio_client(env: dict[str, str], secret: str, *, url: str | None = None) -> Client:
    env = {**env, "CROSSTALK_KEY": secret}
    if url:
        env["CROSSTALK_URL"] = url
    command = StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp_stdio"], env=env, cwd=str(ROOT)
    )
    return Client(command)


async def tool_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


# Streamable HTTP -----------------------------------------------------------------


@pytest.mark.embedded_only
@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_it_answers_401_json_without_a_valid_secret(site, path):
    for headers in ({}, {"Authorization": "Bearer cak_wrong"}, {"Authorization": "Basic x"}):
        response = httpx2.post(site.url + path, json={}, headers=headers, timeout=10)
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"


@pytest.mark.embedded_only
def test_it_answers_413_json_for_a_body_over_the_limit(site):
    headers = {"Authorization": f"Bearer {site.token}", "Content-Type": "application/json"}
    body = b'{"text": "' + b"x" * (settings.API_MAX_BODY_BYTES + 1) + b'"}'
    response = httpx2.post(site.url + "/mcp", content=body, headers=headers, timeout=10)
    assert (response.status_code, response.json()["code"]) == (413, "too_large")


@pytest.mark.embedded_only
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_it_serves_the_agent_tools_over_http(site, mode):
    async with http_client(site.url, site.sender["agent_key"], mode=mode) as client:
        assert await tool_names(client) == AGENT_TOOLS
        result = await client.call_tool("ListChats", {})
    agent_rest = rest(site.url, site.sender["agent_key"], "GET", "/api/v1/agent/chats")
    assert result.structured_content == agent_rest.json()
    assert [chat["id"] for chat in agent_rest.json()["items"]] == [site.recipient["id"]]


@pytest.mark.embedded_only
async def test_it_serves_the_persons_tools_over_http_with_or_without_the_slash(site):
    for path in ("", "/"):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {site.token}"})
        transport = streamable_http_client(f"{site.url}/mcp{path}", http_client=http)
        async with Client(transport) as client:
            assert await tool_names(client) == PERSON_TOOLS
            result = await client.call_tool("read_peers", {"chat": "chat_missing"})
            assert result.is_error
            assert result.content[0].text.startswith("no_chat: ")


@pytest.mark.embedded_only
async def test_it_a_new_servers_first_requests_at_once_are_all_served(tmp_path):
    """The SDK loads on the first request to /mcp: five sessions opened together on a
    server that never served /mcp all wait for it and list their tools."""
    env, token = prepared_env(tmp_path)
    server, url = start_server(env, "--no-runner")
    try:

        async def listed() -> list[str]:
            async with http_client(url, token) as client:
                return await tool_names(client)

        assert await asyncio.gather(*(listed() for _ in range(5))) == [PERSON_TOOLS] * 5
    finally:
        stop_server(server)


@pytest.mark.embedded_only
async def test_it_a_chat_switched_off_sees_no_tools_at_its_next_list(site):
    async with http_client(site.url, site.token) as person:
        chat = await person.call_tool("start_chat", {"name": "switchable", "peers": True})
        key = chat.structured_content["agent_key"]
        async with http_client(site.url, key) as agent:
            assert await tool_names(agent) == AGENT_TOOLS
            chat_id = chat.structured_content["id"]
            await person.call_tool("set_peer_reach", {"chat": chat_id, "peers": False})
            assert await tool_names(agent) == []
            refused = await agent.call_tool("ListChats", {})
            assert refused.is_error and refused.content[0].text.startswith("peers_off: ")


@pytest.mark.embedded_only
async def test_it_a_chat_started_from_outside_sees_no_tools(site):
    async with http_client(site.url, site.token) as person:
        chat = await person.call_tool("start_chat", {"name": "from-github", "origin": "github"})
    async with http_client(site.url, chat.structured_content["agent_key"]) as agent:
        assert await tool_names(agent) == []


def answer_by_rest(site: Site, answering_url: str, *, text: str) -> str:
    """The recipient's agent answers through the REST route (another process than the
    waiting call's server, when `answering_url` is a second server)."""

    def question():
        listed = rest(site.url, site.token, "GET", f"/api/v1/messages?chat={site.recipient['id']}")
        return next((m for m in listed.json()["items"] if m["text"] == asked), None)

    asked = text
    found = poll(question, "the question")
    reply = {
        "to": site.sender["id"],
        "text": "port 8080",
        "reply_to": found["id"],
        "wait_seconds": 0,
    }
    answered = rest(
        answering_url, site.recipient["agent_key"], "POST", "/api/v1/agent/messages", reply
    )
    assert answered.status_code == 201, answered.text
    return answered.json()["id"]


async def wait_for_answer(site: Site, answering_url: str) -> None:
    # A long demo turn keeps the recipient busy: only our REST answer can come in time.
    busy = rest(
        site.url,
        site.token,
        "POST",
        f"/api/v1/chats/{site.recipient['id']}/prompts",
        {"text": "work 400"},
    )
    assert busy.is_success
    asked = f"which port? {uuid.uuid4().hex[:6]}"
    async with http_client(site.url, site.sender["agent_key"]) as client:
        call = asyncio.create_task(
            client.call_tool(
                "MessageChat", {"to": site.recipient["id"], "text": asked, "waitSeconds": 20}
            )
        )
        answer_id = await asyncio.to_thread(answer_by_rest, site, answering_url, text=asked)
        # Well inside the 20 s wait: the call took the answer as it came (a hint, or
        # the waiting call's next look at the database), not when its time ran out.
        result = await asyncio.wait_for(call, ANSWER_SECONDS)
    rest(site.url, site.token, "POST", f"/api/v1/chats/{site.recipient['id']}/stop")
    body = result.structured_content
    assert (body["answer"], body["answer_message"]["id"]) == (answer_id, answer_id)
    assert body["answer_message"]["detail"] == "waiting_call"
    assert result.content[0].text.endswith("\n\nport 8080")


@pytest.mark.embedded_only
async def test_it_message_chat_waits_for_an_answer_sent_through_rest(site):
    await wait_for_answer(site, site.url)


async def test_it_message_chat_waits_for_an_answer_another_server_took(redis_sites):
    site, other_server = redis_sites
    await wait_for_answer(site, other_server)


# The agent CLIs connect (a wrong token makes them drop the server silently) -------

CLI_DIR = Path("/root/.cache/crosstalk/agent-clis/node_modules/.bin")
# Nothing leaves 127.0.0.1: no telemetry, no update checks.
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "GEMINI_CLI_TRUST_WORKSPACE": "true",
}


def agent_cli(name: str) -> str:
    found = shutil.which(name) or (str(CLI_DIR / name) if (CLI_DIR / name).exists() else None)
    if found is None:
        pytest.skip(f"needs the {name} CLI")
    return found


def run_cli(home: Path, *command: str) -> str:
    env = {**os.environ, **QUIET, "HOME": str(home)}
    done = subprocess.run(  # noqa: S603 (a pinned CLI with fixed arguments)
        command, cwd=home, env=env, capture_output=True, text=True, timeout=60
    )
    return done.stdout + done.stderr


@pytest.mark.embedded_only
def test_it_claude_code_connects_with_the_agent_key_and_not_without(site, tmp_path):
    claude = agent_cli("claude")
    url = f"{site.url}/mcp"
    for name, key in (("crosstalk", site.sender["agent_key"]), ("wrong", "cak_wrong")):
        header = f"Authorization: Bearer {key}"
        add = ["mcp", "add", "--transport", "http", "-s", "user", name, url, "--header", header]
        run_cli(tmp_path, claude, *add)
    listed = run_cli(tmp_path, claude, "mcp", "list")
    assert f"crosstalk: {url} (HTTP) - ✔ Connected" in listed, listed
    assert f"wrong: {url} (HTTP) - ✘ Failed to connect" in listed, listed


@pytest.mark.embedded_only
def test_it_gemini_connects_with_the_agent_key(site, tmp_path):
    gemini = agent_cli("gemini")
    headers = {"Authorization": f"Bearer {site.sender['agent_key']}"}
    server = {"httpUrl": f"{site.url}/mcp", "headers": headers, "trust": True}
    settings = {"mcpServers": {"crosstalk": server}, "privacy": {"usageStatisticsEnabled": False}}
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text(json.dumps(settings))
    listed = run_cli(tmp_path, gemini, "mcp", "list")
    assert f"crosstalk: {site.url}/mcp (http) - Connected" in listed, listed


# stdio ---------------------------------------------------------------------------


@pytest.mark.embedded_only
async def test_it_mcp_stdio_serves_the_tools_on_the_local_database(site):
    async with stdio_client(site.env, site.sender["agent_key"]) as client:
        assert await tool_names(client) == AGENT_TOOLS
        result = await client.call_tool("ReadChat", {"chat": site.recipient["id"], "limit": 2})
    agent_rest = rest(
        site.url,
        site.sender["agent_key"],
        "GET",
        f"/api/v1/agent/chats/{site.recipient['id']}?limit=2",
    )
    assert result.structured_content == agent_rest.json()


@pytest.mark.embedded_only
async def test_it_mcp_stdio_relays_to_a_server(site):
    async with stdio_client(site.env, site.token, url=site.url) as client:
        assert await tool_names(client) == PERSON_TOOLS
        result = await client.call_tool("list_peer_chats", {"chat": site.sender["id"]})
    reach = rest(site.url, site.token, "GET", f"/api/v1/chats/{site.sender['id']}/reach")
    assert result.structured_content == reach.json()


@pytest.mark.embedded_only
def test_it_mcp_stdio_refuses_to_start_without_a_valid_key(site):
    for key in ("", "cak_wrong"):
        done = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "mcp_stdio"],
            cwd=ROOT,
            env={**site.env, "CROSSTALK_KEY": key},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode != 0
        assert "CROSSTALK_KEY" in done.stderr
