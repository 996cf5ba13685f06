"""Driving the "Connect your own session" panel in a browser, as a person copies from it
(shared by the browser test and the test that starts Claude Code with what was copied)."""

from dataclasses import dataclass

EXPECT_MS = 10_000


@dataclass
class Copied:
    key: str
    command: str  # the `claude mcp add …` line
    settings: str  # .claude/settings.local.json


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url("**/chats/")


def clipboard_after_copy(page, block) -> str:
    block.get_by_role("button", name="Copy").click()
    block.get_by_role("button", name="Copied").wait_for(timeout=EXPECT_MS)  # it says so
    return page.evaluate("navigator.clipboard.readText()")


def show_key_switch_tabs_and_copy(page, chat_id: str) -> Copied:
    """Open the panel, show a new key, go to another tab and back, copy Claude's config."""
    page.goto(f"/chats/{chat_id}/")
    panel = page.locator("#attach-panel")
    panel.locator("summary").click()
    panel.get_by_role("button", name="Show a new key").click()
    key = panel.locator(".attach-key").inner_text(timeout=EXPECT_MS)
    panel.get_by_role("tab", name="Codex").click()
    panel.get_by_role("tab", name="Gemini").click()
    panel.get_by_role("tab", name="Claude Code").click()
    claude = panel.get_by_role("tabpanel", name="Claude Code")
    blocks = claude.locator(".code-block")
    command = clipboard_after_copy(page, blocks.filter(has_text="claude mcp add"))
    settings = clipboard_after_copy(page, blocks.filter(has_text="settings.local.json"))
    return Copied(key=key, command=command, settings=settings)
