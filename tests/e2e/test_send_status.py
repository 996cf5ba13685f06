"""Sending from the Peers tab, as a person does it: the Cancel comes with the send's
answer and works at once, and the form's status line follows the message live
(Pending → Delivered → answered), also across a gap in the page's socket.

The message goes to a session the person runs themselves (Claude Code, attached):
its hooks are posted here with the chat's agent key, so the message stays Pending
exactly until the test posts its next step, with no race against a timer. One test
uses the demo agent's background work instead. The server is this module's own, so
the test holds an API token of the demo account to read the truth from the API."""

import json
import re
import urllib.request
from collections.abc import Iterator

import pytest

from tests.e2e.looks import assert_readable
from tests.e2e.test_browser import (
    CHROMIUM,
    expect,
    new_context,
    ran_chats,
    send_from_tab,
    send_prompt,
    server_env,
    status,
)
from tests.servers import manage, migrate, start_server, stop_server

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")

PENDING = "Pending — its next step takes it"
SCREENSHOTS = "/tmp/crosstalk-send-status"  # noqa: S108 - looked at by hand, never kept


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    env = server_env(tmp_path_factory.mktemp("e2e-send") / "db.sqlite3")
    migrate(env)
    manage(env, "seed_demo")
    token = manage(env, "create_api_token", "demo").strip().splitlines()[-1]
    server, url = start_server(env)
    try:
        yield {"url": url, "token": token}
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def base_url(site: dict) -> str:
    """test_browser's fixtures (the log-in, the contexts) on this module's server."""
    return site["url"]


def call(site: dict, method: str, path: str, body: dict | None = None, *, key: str = "") -> dict:
    request = urllib.request.Request(  # noqa: S310 - our own server
        site["url"] + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {key or site['token']}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return json.loads(response.read() or b"{}")


def hook(site: dict, key: str, event: str, **fields) -> dict:
    payload = {"session_id": "e2e-session", "hook_event_name": event, **fields}
    return call(site, "POST", "/api/v1/agent/hooks/claude-code", payload, key=key)


def running_session(site: dict, name: str) -> str:
    """An attached Claude Code chat whose person just wrote a prompt: running, and a
    message to it waits for its next step. Answers its agent key."""
    body = {"name": name, "agent": "claude-code", "peers": True}
    chat = call(site, "POST", "/api/v1/chats", body)
    hook(site, chat["agent_key"], "UserPromptSubmit", prompt="refactor the cart")
    return chat["agent_key"]


def sent_line(page):
    return page.locator("#peers-sent")


def sent_id(page) -> str:
    return sent_line(page).locator(".sent-line").get_attribute("data-message")


def test_it_cancels_a_pending_message_with_the_button_the_send_brought(site, context):
    key = running_session(site, "cancel-session")
    [sender] = ran_chats(context, "cancel-sender")

    send_from_tab(sender, "cancel-session", "use the v2 prices")

    line = sent_line(sender)
    expect(line.locator(".state-word")).to_have_text(PENDING)
    line.get_by_role("button", name="Cancel").click()
    expect(line.locator(".state-word")).to_have_text("Cancelled — before it arrived")
    expect(line.get_by_role("button", name="Cancel")).to_have_count(0)
    card = sender.locator("#conversation .msg", has_text="use the v2 prices")
    expect(card.locator(".state-word").first).to_have_text("Cancelled — before it arrived")

    # Its next step takes nothing, and the message never arrives.
    assert hook(site, key, "PostToolUse", tool_name="Bash") == {}
    message = call(site, "GET", f"/api/v1/messages/{sent_id(sender)}")
    assert (message["state"], message["delivered_at"]) == ("cancelled", None)


def test_it_the_status_line_follows_the_message_to_delivered_and_answered(site, context):
    key = running_session(site, "live-session")
    [sender] = ran_chats(context, "live-sender")

    send_from_tab(sender, "live-session", "which **port**?")
    line = sent_line(sender)
    expect(line.locator(".state-word")).to_have_text(PENDING)
    expect(line.get_by_role("button", name="Cancel")).to_be_visible()

    taken = hook(site, key, "PostToolUse", tool_name="Bash")
    assert sent_id(sender) in taken["hookSpecificOutput"]["additionalContext"]
    expect(line.locator(".state-word")).to_have_text("Delivered — between steps")
    expect(line.get_by_role("button", name="Cancel")).to_have_count(0)
    expect(line).not_to_contain_text("answered")

    hook(site, key, "Stop", last_assistant_message="It listens on 8080.")
    expect(line).to_contain_text("· answered")
    expect(line.locator(".state-word")).to_have_text("Delivered — between steps")


def test_it_the_status_line_resyncs_after_a_gap_in_the_socket(site, context):
    """A push is only a hint: one lost while the socket is away is made up for by the
    resync on reconnecting, and the status line reads the database then too."""
    key = running_session(site, "gap-session")
    [sender] = ran_chats(context, "gap-sender")
    sockets = []

    def between(ws) -> None:  # the page's socket, through a hand that can drop hints
        server = ws.connect_to_server()
        server.on_message(lambda hint: None if sockets[-1][1]["deaf"] else ws.send(hint))
        sockets.append((ws, {"deaf": False}))

    sender.route_web_socket(re.compile(r"/ws/chats/"), between)
    sender.reload()
    expect(sender.locator(".live-dot.on")).to_have_count(1)
    send_from_tab(sender, "gap-session", "are the tests green?")
    expect(sent_line(sender).locator(".state-word")).to_have_text(PENDING)

    sockets[-1][1]["deaf"] = True  # hints from here on are lost
    hook(site, key, "PostToolUse", tool_name="Bash")
    assert call(site, "GET", f"/api/v1/messages/{sent_id(sender)}")["state"] == "delivered"
    expect(sent_line(sender).locator(".state-word")).to_have_text(PENDING)

    sockets[-1][0].close()  # the socket drops; the page reconnects and resyncs
    expect(sent_line(sender).locator(".state-word")).to_have_text("Delivered — between steps")
    assert len(sockets) == 2


def test_it_cancels_a_message_waiting_for_a_demo_chats_background_work(site, context):
    worker, sender = ran_chats(context, "bg-worker", "bg-sender")
    send_prompt(worker, "background 30")
    expect(status(worker)).to_have_text("Waiting")

    send_from_tab(sender, "bg-worker", "and update the changelog")
    line = sent_line(sender)
    expect(line.locator(".state-word")).to_have_text("Queued — waits with its background work")
    line.get_by_role("button", name="Cancel").click()
    expect(line.locator(".state-word")).to_have_text("Cancelled — removed from the queue")

    # The work ends, the chat goes idle and runs another turn, never taking it.
    expect(status(worker)).to_have_text("Idle", timeout=20_000)
    send_prompt(worker, "after the work")
    expect(worker.locator("#conversation .entry-answer").last).to_contain_text("after the work")
    message = call(site, "GET", f"/api/v1/messages/{sent_id(sender)}")
    assert (message["state"], message["delivered_at"]) == ("cancelled", None)
    expect(worker.locator("#conversation")).not_to_contain_text("got bg-sender's message")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_it_the_status_line_with_its_cancel_reads_well(site, browser, logged_in, scheme):
    errors: list[str] = []
    context = new_context(browser, site["url"], logged_in, errors, scheme=scheme)
    try:
        running_session(site, f"looks-session-{scheme}")
        [sender] = ran_chats(context, f"looks-sender-{scheme}")
        send_from_tab(sender, f"looks-session-{scheme}", "a look at the line")
        expect(sent_line(sender).get_by_role("button", name="Cancel")).to_be_visible()
        assert_readable(sender)
        sender.locator("#peers-tab").screenshot(path=f"{SCREENSHOTS}-{scheme}.png")
    finally:
        context.close()
    assert errors == []
