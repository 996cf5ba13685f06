"""The attach panel in a real browser: the key shown once stays in every tab, what
the copy buttons copy holds it, the tabs work from the keyboard, and replacing the
key asks first."""

import json
import os
from collections.abc import Iterator

import pytest

from tests.browsers import CHROMIUM, chromium
from tests.e2e.attach_panel import log_in, show_key_switch_tabs_and_copy
from tests.servers import manage, migrate, start_server, stop_server

sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
PASSWORD = "alice-password-1"  # noqa: S105


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[dict]:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'db'}")
    env.pop("REDIS_URL", None)
    migrate(env)
    out = manage(env, "create_api_token", "alice", "--create-user", "--password", PASSWORD)
    server, url = start_server(env)
    try:
        yield {"url": url, "token": out.strip().splitlines()[-1]}
    finally:
        stop_server(server)


def new_chat(site: dict, name: str, agent: str) -> str:
    import urllib.request

    request = urllib.request.Request(  # noqa: S310 - our own server
        site["url"] + "/api/v1/chats",
        data=json.dumps({"name": name, "agent": agent, "peers": True}).encode(),
        headers={"Authorization": f"Bearer {site['token']}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return json.loads(response.read())["id"]


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(site, browser) -> Iterator:
    context = browser.new_context(base_url=site["url"])
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        context.set_default_timeout(10_000)
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        log_in(page, "alice", PASSWORD)
        yield page
    finally:
        context.close()
    assert errors == []


def test_it_the_key_stays_in_every_tab_and_is_what_the_copy_buttons_copy(site, page):
    chat_id = new_chat(site, "api-claude", "claude-code")

    copied = show_key_switch_tabs_and_copy(page, chat_id)

    assert copied.key.startswith("cak_")
    assert copied.command.startswith("claude mcp add --transport http --scope local crosstalk ")
    assert f"Bearer {copied.key}'" in copied.command
    assert json.loads(copied.settings)["env"]["CROSSTALK_KEY"] == copied.key
    panel = page.locator("#attach-panel")
    for tab in ("Codex", "Gemini"):
        panel.get_by_role("tab", name=tab).click()
        body = panel.get_by_role("tabpanel", name=tab).inner_text()
        assert f"CROSSTALK_KEY={copied.key}" in body and "SHOW-A-NEW-KEY" not in body


def test_it_the_tabs_work_from_the_keyboard(site, page):
    chat_id = new_chat(site, "api-codex", "codex")
    page.goto(f"/chats/{chat_id}/")
    panel = page.locator("#attach-panel")
    panel.locator("summary").click()
    codex = panel.get_by_role("tab", name="Codex")
    sync_api.expect(codex).to_have_attribute("aria-selected", "true")  # the chat's own CLI
    codex.focus()
    page.keyboard.press("ArrowRight")
    gemini = panel.get_by_role("tab", name="Gemini")
    sync_api.expect(gemini).to_have_attribute("aria-selected", "true")
    sync_api.expect(gemini).to_be_focused()
    sync_api.expect(panel.get_by_role("tabpanel", name="Gemini")).to_be_visible()
    sync_api.expect(panel.get_by_role("tabpanel", name="Codex")).to_be_hidden()
    page.keyboard.press("ArrowRight")  # wraps to the first
    sync_api.expect(panel.get_by_role("tab", name="Claude Code")).to_be_focused()
    page.keyboard.press("End")
    sync_api.expect(gemini).to_be_focused()


def test_it_replacing_the_key_asks_first_and_keeps_it_when_cancelled(site, page):
    chat_id = new_chat(site, "api-gemini", "gemini")
    copied = show_key_switch_tabs_and_copy(page, chat_id)
    panel = page.locator("#attach-panel")
    asked: list[str] = []

    def dismiss(dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    panel.get_by_role("button", name="Replace this key").click()
    sync_api.expect(panel.locator(".attach-key")).to_have_text(copied.key)
    assert asked and "stops working" in asked[0]

    page.once("dialog", lambda dialog: dialog.accept())
    panel.get_by_role("button", name="Replace this key").click()
    sync_api.expect(panel.locator(".attach-key")).not_to_have_text(copied.key)
    # The tab the person was on stays selected after the new key came.
    sync_api.expect(panel.get_by_role("tab", name="Claude Code")).to_have_attribute(
        "aria-selected", "true"
    )
