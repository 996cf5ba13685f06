"""The A2A face's fences, against `manage.py serve` (its own database, either backend): the
Host must be one of ALLOWED_HOSTS, bodies are bounded and shallow, a deactivated account's
agent is missing, internal errors say nothing of the server, and a blocking call whose
client went away stops waiting for its turn at once."""

import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.origins.sites import Site, make_origins, origin_site
from tests.servers import manage

PUBLIC_URL = "https://crosstalk.example.com"
# A turn that runs for longer than the test looks.
SLOW = {"agent": "command", "command": "sleep 30; echo done"}


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens the test database."""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    yield from origin_site(
        tmp_path_factory.mktemp("a2a-fences"),
        "a2a_fences",
        CROSSTALK_PUBLIC_URL=PUBLIC_URL,
        ORIGIN_MAX_BODY_BYTES="65536",
    )


@pytest.fixture(scope="module")
def agents(site: Site) -> dict[str, tuple[str, str]]:
    # A relative folder: made inside the owner's own, var/folders/<username>/slow-agent.
    folder = "slow-agent"
    specs = {
        "agent": {"kind": "a2a", "name": "helper"},
        "slow": {"kind": "a2a", "name": "slow", "folder": folder, **SLOW},
        "deactivated": {"kind": "a2a", "name": "left", "username": "gone", "user_active": False},
    }
    return dict(zip(specs, make_origins(site, *specs.values()), strict=True))


def url(site: Site, origin_id: str, rest: str = "/") -> str:
    return f"{site.url}/a2a/{origin_id}{rest}"


def rpc(site: Site, agent: tuple[str, str], method: str, params: dict, timeout: float = 30):
    origin_id, secret = agent
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = {"Authorization": f"Bearer {secret}", "A2A-Version": "1.0"}
    return httpx.post(url(site, origin_id), json=body, headers=headers, timeout=timeout)


def message(text: str, context_id: str) -> dict:
    return {
        "message": {
            "messageId": uuid.uuid4().hex,
            "role": "ROLE_USER",
            "contextId": context_id,
            "parts": [{"text": text}],
        },
        "configuration": {"returnImmediately": False},
    }


def test_it_refuses_a_host_that_is_not_allowed(site, agents):
    origin_id, secret = agents["agent"]
    headers = {"Host": "evil.example", "Authorization": f"Bearer {secret}"}
    card = httpx.get(url(site, origin_id, "/.well-known/agent-card.json"), headers=headers)
    call = httpx.post(url(site, origin_id), json={}, headers=headers)
    for answer in (card, call):
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_input"
    assert "evil.example" not in card.text


def test_it_the_card_names_the_servers_public_url_whatever_the_host(site, agents):
    origin_id, _ = agents["agent"]
    card = httpx.get(
        url(site, origin_id, "/.well-known/agent-card.json"),
        headers={"Host": "localhost"},
    ).json()
    [interface] = card["supportedInterfaces"]
    assert interface["url"] == f"{PUBLIC_URL}/a2a/{origin_id}/"


def test_it_a_body_over_the_limit_is_refused_unread(site, agents):
    answer = rpc(site, agents["agent"], "SendMessage", message("x" * 70_000, "big"))
    assert answer.status_code == 413 and answer.json()["code"] == "too_large"


def test_it_deep_json_is_refused_as_invalid_input(site, agents):
    origin_id, secret = agents["agent"]
    deep = b'{"jsonrpc": "2.0", "id": 1, "params": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    answer = httpx.post(
        url(site, origin_id),
        content=deep,
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_input"


def test_it_a_deactivated_accounts_agent_reads_like_a_missing_one(site, agents):
    origin_id, secret = agents["deactivated"]
    headers = {"Authorization": f"Bearer {secret}"}
    for rest in ("/.well-known/agent-card.json", "/"):
        missing = httpx.get(url(site, "org_missing", rest), headers=headers)
        answer = httpx.get(url(site, origin_id, rest), headers=headers)
        assert answer.status_code == missing.status_code == 404
        assert answer.content == missing.content
    sent = rpc(site, agents["deactivated"], "SendMessage", message("hi", "c-off"))
    assert sent.status_code == 404


def test_it_an_internal_error_is_answered_without_its_words(site, agents):
    # The task table gone: the database's own error, a real one, on either backend.
    rename = "from django.db import connection; connection.cursor().execute('ALTER TABLE {}')"
    manage(site.env, "shell", "-c", rename.format("origins_a2atask RENAME TO a2a_away"))
    try:
        answer = rpc(site, agents["agent"], "GetTask", {"id": "t-1"})
    finally:
        manage(site.env, "shell", "-c", rename.format("a2a_away RENAME TO origins_a2atask"))
    error = answer.json()["error"]
    assert error["code"] == -32603 and error["message"] == "Internal error"
    assert "a2atask" not in answer.text.lower() and "relation" not in answer.text


def test_it_a_page_token_no_one_gave_is_invalid_params_not_a_database_error(site, agents):
    answer = rpc(site, agents["agent"], "ListTasks", {"pageToken": "9" * 30})
    error = answer.json()["error"]
    assert error["code"] == -32602 and "pageToken" in error["message"]
    assert "range" not in answer.text and "SQLite" not in answer.text


def failed_after_leaving(site: Site, agent: tuple[str, str], context: str) -> tuple[float, dict]:
    """Seconds from now until the context's task reads failed (at most 10), and the task."""
    left_at, task = time.monotonic(), {}
    while time.monotonic() - left_at < 10:
        tasks = rpc(site, agent, "ListTasks", {"contextId": context})
        task = tasks.json()["result"]["tasks"][0]
        if task["status"]["state"] == "TASK_STATE_FAILED":
            break
        time.sleep(0.05)  # a poll of the server's state, not a wait for time to pass
    return time.monotonic() - left_at, task


def test_it_a_blocking_call_stops_waiting_when_its_client_goes_away(site, agents):
    context = f"gone-{uuid.uuid4().hex[:8]}"
    with pytest.raises(httpx.ReadTimeout):  # the client gives up, closing its connection
        rpc(site, agents["slow"], "SendMessage", message("hi", context), timeout=3)
    waited, task = failed_after_leaving(site, agents["slow"], context)
    # The turn runs for 30 s and the wait would have lasted A2A_WAIT_SECONDS (30 min).
    assert task["status"]["state"] == "TASK_STATE_FAILED" and waited < 2, (task, waited)
    assert "went away" in task["status"]["message"]["parts"][0]["text"]


def test_it_a_stream_stops_waiting_when_its_client_goes_away(site, agents):
    context = f"gone-{uuid.uuid4().hex[:8]}"
    origin_id, secret = agents["slow"]
    call = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage"}
    headers = {"Authorization": f"Bearer {secret}", "A2A-Version": "1.0"}
    body = {**call, "params": message("hi", context)}
    with httpx.stream("POST", url(site, origin_id), json=body, headers=headers) as stream:
        assert any("TASK_STATE_WORKING" in line for line in stream.iter_lines())
    waited, task = failed_after_leaving(site, agents["slow"], context)
    assert task["status"]["state"] == "TASK_STATE_FAILED" and waited < 2, (task, waited)
