"""The README's screenshots, from a fresh demo (only the chats `seed_demo` makes), at
1440 and 390 px and in dark mode, including the Messages page, the inbox, search and
the origin form. Each page is checked as it is shot: it fits its width and its text
reads (contrast ≥ 4.5:1).

`UPDATE_SCREENSHOTS=1` writes them into docs/screenshots/; otherwise a temp folder."""

import re

import pytest

from tests.e2e.looks import assert_fits, assert_readable
from tests.e2e.test_browser import (
    CHROMIUM,
    SHOTS,
    WIDTHS,
    card,
    expect,
    new_context,
    open_chat,
    send_from_tab,
    send_prompt,
    status,
    stop_chat,
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


def showcase(context) -> None:
    """checkout asks payments-api and gets its answer; payments-api is stopped, so the next
    message waits for the person; one more is sent and removed."""
    checkout = open_chat(context, "checkout")
    payments = open_chat(context, "payments-api")
    send_prompt(checkout, "ask payments-api: which port does the payment service listen on?")
    expect(card(checkout, "which port").locator(".msg-answer")).to_be_visible()
    expect(status(checkout)).to_have_text("Idle")
    stop_chat(payments)
    send_from_tab(checkout, "payments-api", "Reserve stock for order `42` before payment.")
    send_from_tab(checkout, "payments-api", "Ignore the message about order 41.")
    card(checkout, "order 41").get_by_role("button", name="Remove").click()
    expect(card(checkout, "order 41").locator(".state-word").first).to_contain_text("Cancelled")
    checkout.close()
    payments.close()


def shoot(page, name: str, *, full: bool = False) -> None:
    assert_fits(page)
    assert_readable(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def shoot_the_control_room(page, width: str) -> None:
    """The inbox (the held message waits there), search with its words marked, and the
    origin form showing only the chosen kind's fields."""
    page.goto("/inbox/")
    expect(page.locator(".inbox-item.kind-held").first).to_be_visible()
    shoot(page, f"inbox-{width}")
    page.goto("/search/?q=ports")
    expect(page.locator(".search-hit mark").first).to_be_visible()
    shoot(page, f"search-{width}")
    page.goto("/settings/origins/")
    expect(page.locator(".origin-form")).to_be_visible()
    shoot(page, f"origins-{width}", full=True)


def test_it_the_readme_screenshots(browser, base_url, logged_in, console_errors):
    SHOTS.mkdir(parents=True, exist_ok=True)
    setup = new_context(browser, base_url, logged_in, console_errors)
    try:
        showcase(setup)
    finally:
        setup.close()
    for width in WIDTHS:
        context = new_context(browser, base_url, logged_in, console_errors, width)
        try:
            page = context.new_page()
            page.goto("/chats/")
            expect(page.locator(".chat-card")).to_have_count(4)  # the seed's, nothing else
            expect(page.locator(".live-dot.on")).to_have_count(1)
            shoot(page, f"chat-list-{width}")
            page.get_by_role("link", name="checkout", exact=True).click()
            expect(page.locator(".live-dot.on")).to_have_count(1)
            expect(page.locator("#conversation .msg")).to_have_count(3)
            shoot(page, f"chat-{width}")
            page.locator("#peers-tab").screenshot(path=str(SHOTS / f"peers-tab-{width}.png"))
            page.goto("/messages/")
            expect(page.locator(".message-row").first).to_be_visible()
            shoot(page, f"messages-{width}")
            page.goto("/messages/?q=port")
            expect(page.locator(".messages-count")).to_contain_text("best match first")
            page.goto("/activity/")
            shoot(page, f"activity-{width}")
            shoot_the_control_room(page, width)
        finally:
            context.close()
    dark = new_context(browser, base_url, logged_in, console_errors, scheme="dark")
    try:
        page = dark.new_page()
        page.goto("/chats/")
        page.get_by_role("link", name="checkout", exact=True).click()
        expect(page.locator(".live-dot.on")).to_have_count(1)
        shoot(page, "chat-dark")
        page.goto("/messages/")
        shoot(page, "messages-dark")
        page.keyboard.press("Control+k")
        expect(page.locator("#switcher-list a").first).to_be_visible()
        page.screenshot(path=str(SHOTS / "switcher-dark.png"))
        assert re.search("payments-api", page.locator("#switcher-list").inner_text())
    finally:
        dark.close()
