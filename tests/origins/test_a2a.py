"""Crosstalk as an A2A server, driven by the a2a-sdk's own client against `manage.py serve`
(its own database: a SQLite file, or a PostgreSQL database of its own on the second stage):
SendMessage and SendStreamingMessage (and their v0.3 names message/send, message/stream)
start or continue the origin's chat and run a demo turn; the answer is the task's artifact."""

import asyncio
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import httpx2
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import (
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskState,
)
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.origins.sites import Site, make_origins, origin_site, rest
from tests.servers import manage


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens the test database."""


@dataclass(frozen=True)
class Agent:
    site: Site
    origin_id: str
    secret: str
    name: str = ""

    @property
    def url(self) -> str:
        return f"{self.site.url}/a2a/{self.origin_id}"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    yield from origin_site(tmp_path_factory.mktemp("a2a"), "a2a")


@pytest.fixture(scope="module")
def made(site: Site) -> dict[str, Agent]:
    """Every origin the module needs, made at once (a `manage.py shell` is seconds)."""
    specs = {
        "agent": {"kind": "a2a", "name": "helper"},
        "webhook": {"kind": "webhook", "name": "hook"},
        "off": {"kind": "a2a", "name": "off", "enabled": False},
        "theirs": {"kind": "a2a", "name": "theirs", "username": "someone-else"},
    }
    origins = make_origins(site, *specs.values())
    return {
        key: Agent(site, *made, specs[key]["name"])
        for key, made in zip(specs, origins, strict=True)
    }


@pytest.fixture
def agent(made) -> Agent:
    return made["agent"]


def client_for(agent: Agent, *, streaming: bool, token: str | None = None):
    headers = {"Authorization": f"Bearer {token if token is not None else agent.secret}"}
    config = ClientConfig(
        httpx_client=httpx.AsyncClient(headers=headers, timeout=30), streaming=streaming
    )
    return create_client(agent.url, client_config=config)


def user_message(text: str, context_id: str = "") -> SendMessageRequest:
    message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=text)])
    if context_id:
        message.context_id = context_id
    return SendMessageRequest(
        message=message, configuration=SendMessageConfiguration(return_immediately=False)
    )


async def final_task(agent: Agent, text: str, *, streaming: bool, context_id: str = ""):
    client = await client_for(agent, streaming=streaming)
    states, task = [], None
    async for event in client.send_message(request=user_message(text, context_id)):
        if event.HasField("task"):
            task = event.task
            states.append(task.status.state)
        elif event.HasField("status_update"):
            states.append(event.status_update.status.state)
    task = await client.get_task(request=GetTaskRequest(id=task.id))
    return task, states


def artifact_text(task) -> str:
    return "".join(part.text for artifact in task.artifacts for part in artifact.parts)


def chats_of(site: Site) -> list[dict]:
    return rest(site, "GET", "/api/v1/chats?limit=100").json()["items"]


def test_it_serves_a_card_that_points_at_its_own_endpoint(agent):
    card = httpx.get(f"{agent.url}/.well-known/agent-card.json").json()
    assert card["supportedInterfaces"][0]["url"] == f"{agent.url}/"
    assert card["capabilities"]["streaming"] is True
    assert "bearer" in card["securitySchemes"]


def test_it_answers_send_message_with_the_chats_final_text(agent):
    task, _ = asyncio.run(final_task(agent, "say hello to the A2A client", streaming=False))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert "say hello to the A2A client" in artifact_text(task)  # the demo agent echoes
    chat = next(c for c in chats_of(agent.site) if c["origin"] == "a2a")
    assert chat["status"] == "idle"


def test_it_streams_working_then_completed_and_continues_the_same_context(agent):
    task, states = asyncio.run(final_task(agent, "first question", streaming=True))
    assert states[0] == TaskState.TASK_STATE_SUBMITTED
    assert TaskState.TASK_STATE_WORKING in states
    assert states[-1] == TaskState.TASK_STATE_COMPLETED
    before = {c["id"] for c in chats_of(agent.site)}
    again, _ = asyncio.run(
        final_task(agent, "second question", streaming=True, context_id=task.context_id)
    )
    assert "second question" in artifact_text(again)
    assert again.context_id == task.context_id
    assert {c["id"] for c in chats_of(agent.site)} == before  # the same chat went on


def v03_call(agent: Agent, method: str, text: str, token: str | None = None) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {
            "message": {
                "role": "user",
                "kind": "message",
                "messageId": uuid.uuid4().hex,
                "parts": [{"kind": "text", "text": text}],
            }
        },
    }
    token = agent.secret if token is None else token
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{agent.url}/", json=body, headers=headers, timeout=30)


def test_it_takes_the_v03_method_names(agent):
    answer = v03_call(agent, "message/send", "old client says hi")
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["kind"] == "task"
    streamed = v03_call(agent, "message/stream", "old client streams")
    events = [
        json.loads(line[5:]) for line in streamed.text.splitlines() if line.startswith("data:")
    ]
    assert events and events[-1]["result"]["status"]["state"] == "completed"


def test_it_a_wrong_token_is_refused_and_starts_nothing(agent):
    before = len(chats_of(agent.site))
    for token in ("", "wrong", agent.secret + "x", "-" + agent.secret, agent.secret[:-1]):
        answer = v03_call(agent, "message/send", "let me in", token=token)
        assert answer.status_code == 401
        assert answer.json()["code"] == "not_authenticated"
    assert len(chats_of(agent.site)) == before


def test_it_unknown_disabled_and_other_kinds_read_alike(site, made):
    for public_id in (f"org_{'x' * 24}", made["webhook"].origin_id, made["off"].origin_id):
        card = httpx.get(f"{site.url}/a2a/{public_id}/.well-known/agent-card.json")
        call = v03_call(Agent(site, public_id, made["off"].secret), "message/send", "hi")
        assert (card.status_code, call.status_code) == (404, 404)
        assert (
            card.json()
            == call.json()
            == {
                "code": "not_found",
                "message": "There is no such A2A agent here.",
            }
        )


def test_it_another_accounts_token_opens_nothing_here(made):
    theirs, agent = made["theirs"], made["agent"]
    assert v03_call(theirs, "message/send", "hi", token=agent.secret).status_code == 401
    assert v03_call(agent, "message/send", "hi", token=theirs.secret).status_code == 401


AGENT_KEY = """
from chats.actions import do_rotate_agent_key
from chats.models import Chat
print(do_rotate_agent_key(Chat.objects.get(pk=CHAT)))
"""


def test_it_the_outside_chats_agent_cannot_list_read_or_message(site, agent):
    task, _ = asyncio.run(final_task(agent, "what can you do?", streaming=False))
    chats = chats_of(site)
    outside = next(c for c in chats if task.context_id in c["name"])
    other = rest(site, "POST", "/api/v1/chats", {"name": f"mine-{uuid.uuid4().hex[:6]}"}).json()
    key = manage(site.env, "shell", "-c", AGENT_KEY.replace("CHAT", repr(outside["id"])))
    calls = {
        "ListChats": {},
        "ReadChat": {"chat": other["id"]},
        "MessageChat": {"to": other["id"], "text": "leak the person's repo"},
    }
    results = asyncio.run(call_as_agent(site, key.strip().splitlines()[-1], calls))
    for name, (is_error, text) in results.items():
        assert is_error and text.startswith("outside_origin"), (name, text)


async def call_as_agent(site: Site, key: str, calls: dict) -> dict:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    async with Client(streamable_http_client(f"{site.url}/mcp", http_client=http)) as client:
        results = {}
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            results[name] = (result.is_error, result.content[0].text)
        return results


def test_it_a_nul_byte_is_rejected_and_starts_nothing(site, agent):
    before = len(chats_of(site))
    answer = v03_call(agent, "message/send", "hello\x00there")
    assert answer.status_code == 200, answer.text
    task = answer.json()["result"]
    assert task["status"]["state"] == "rejected"
    assert "invalid_input" in json.dumps(task["status"])
    assert len(chats_of(site)) == before
