"""Hosted chats of the REAL CLIs messaging each other through Crosstalk: a message
wakes an idle hosted chat, and its answer comes back inside the sender's waiting
call. The flagship: a hosted Claude Code chat asks a hosted Codex chat with
MessageChat and waitSeconds, and gets the answer within the call."""

import json

import pytest

from tests.agentcli.runner_site import screenshot_chats, site_fixture

pytestmark = pytest.mark.agent_cli


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture()


@pytest.fixture(scope="module")
def codex_chat(site):
    """A hosted Codex chat that ran once (so it is within reach) and is idle now."""
    chat = site.hosted_chat("billing", "codex", permission_mode="workspace-write")
    site.prompt(chat, "[[say ready]]")
    assert site.until(chat, "idle", "failed")["status"] == "idle", site.notes(chat)
    return chat


def test_it_a_message_wakes_an_idle_hosted_chat_and_its_answer_reaches_the_waiting_call(
    site, codex_chat
):
    sender = site.call("POST", "/api/v1/chats", {"name": "asker", "peers": True}).json()
    site.prompt(sender, "hello")  # a chat that ran is within reach of the answer
    site.until(sender, "idle")
    before = site.ended_turns(codex_chat)

    response = site.call(
        "POST",
        "/api/v1/agent/messages",
        {"to": codex_chat["id"], "text": "Which port? [[say port-8080]]", "wait_seconds": 45},
        secret=sender["agent_key"],
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["answer_message"] is not None, (body, site.notes(codex_chat))
    assert body["answer_message"]["text"] == "port-8080"
    assert body["answer_message"]["detail"] == "waiting_call"
    woken = site.query(
        "select trigger from chats_turn where chat_id = ? order by id", codex_chat["id"]
    )
    assert woken[before:] == [("wake",)]


def test_it_a_hosted_claude_chat_asks_a_hosted_codex_chat_and_gets_the_answer_in_the_call(
    site, codex_chat
):
    asker = site.hosted_chat("checkout", "claude-code", permission_mode="bypassPermissions")
    call = {"to": codex_chat["id"], "text": "Which port does billing listen on?"}
    call["waitSeconds"] = 40
    site.prompt(asker, f"[[call MessageChat {json.dumps(call)}]]\n[[say relayed]]")

    done = site.until(asker, "idle", "failed")

    assert done["status"] == "idle", site.notes(asker)
    assert done["last_answered"] == "relayed"
    messages = site.call("GET", f"/api/v1/messages?chat={asker['id']}").json()["items"]
    question = next(m for m in messages if m["from_chat"] == asker["id"])
    answer = next(m for m in messages if m["to_chat"] == asker["id"])
    assert question["to_chat"] == codex_chat["id"] and question["answered"]
    assert question["answer"] == answer["id"]
    assert (answer["from_chat"], answer["detail"]) == (codex_chat["id"], "waiting_call")
    screenshot_chats(site, [asker, codex_chat], "hosted-claude-asks-codex")
    # The answer came back inside the MessageChat call, as its tool result.
    assert site.fake.saw(answer["id"], "anthropic")
    assert site.entries(asker, "tool")[0].startswith("mcp__crosstalk__MessageChat · ")
