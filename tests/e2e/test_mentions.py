"""The composer's @ picker in a real browser: typing @ lists the person's chats (name,
repository, branch, status); the keyboard and the mouse pick one, written into the
text as its name and id; the same in the Peers tab's "send as" and Connect boxes. Run
under the site's CSP (test_browser's autouse check fails on any violation)."""

import re

import pytest

from tests.e2e.test_browser import (  # noqa: F401 (no_csp_violation: autouse here too)
    CHROMIUM,
    expect,
    no_csp_violation,
    open_chat,
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
MENTION = re.compile(r"@checkout \(chat_\w+\) ")


def options(page, box: str):
    return page.locator(f"#{box}-mentions .mention-option")


def test_it_mentions_a_chat_with_the_keyboard_in_the_composer(context):
    page = open_chat(context, "docs")
    page.bring_to_front()
    area = page.locator("#composer-text")
    area.click()
    page.keyboard.type("Ask @")
    expect(page.locator("#composer-text-mentions")).to_be_visible()
    expect(options(page, "composer-text").first).to_be_visible()
    page.keyboard.type("chec")
    expect(options(page, "composer-text")).to_have_count(1)
    only = options(page, "composer-text").first
    expect(only).to_contain_text("checkout")
    expect(only.locator(".mention-status")).to_have_text(
        re.compile(r"idle|running|waiting|stopped|failed")
    )
    expect(area).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Enter")  # a pick, not a new line and not a send
    expect(page.locator("#composer-text-mentions")).to_be_hidden()
    value = area.input_value()
    assert value.startswith("Ask @checkout (chat_") and MENTION.search(value), value
    page.keyboard.type("about the cart")
    page.keyboard.press("Escape")
    # Escape closes the list without picking.
    page.keyboard.type(" @do")
    expect(options(page, "composer-text").first).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#composer-text-mentions")).to_be_hidden()
    assert area.input_value().endswith("about the cart @do")
    # Sent: the composer htmx swaps in is wired too.
    page.keyboard.press("Control+Enter")
    expect(page.locator("#conversation .entry-prompt").last).to_contain_text("about the cart")
    fresh = page.locator("#composer-text")
    expect(fresh).to_have_value("")
    fresh.click()
    page.keyboard.type("@chec")
    expect(options(page, "composer-text")).to_have_count(1)


def test_it_mentions_with_the_mouse_in_the_send_as_and_connect_boxes(context):
    page = open_chat(context, "docs")
    page.bring_to_front()
    page.locator("summary", has_text="Send a message").click()
    page.locator("#send-text").click()
    page.keyboard.type("see @check")
    expect(options(page, "send-text")).to_have_count(1)
    options(page, "send-text").first.click()
    assert MENTION.search(page.locator("#send-text").input_value())
    expect(page.locator("#send-text")).to_be_focused()

    page.locator("summary", has_text=re.compile("Connect")).first.click()
    page.locator("#connect-brief").click()
    page.keyboard.type("with @CHECK")  # any case
    expect(options(page, "connect-brief")).to_have_count(1)
    page.keyboard.press("Tab")
    assert MENTION.search(page.locator("#connect-brief").input_value())


def test_it_lists_nothing_for_a_name_no_chat_has(context):
    page = open_chat(context, "docs")
    page.bring_to_front()
    page.locator("#composer-text").click()
    with page.expect_response(re.compile(r"/chats/mentions/\?q=zzz")):
        page.keyboard.type("@zzz")
    expect(page.locator("#composer-text-mentions")).to_be_hidden()
