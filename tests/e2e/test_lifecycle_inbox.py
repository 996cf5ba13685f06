"""Issue 37's inbox and chat lifecycle in a real browser, at 1440×900 and 390×844, light
and dark: a failed turn waits in the inbox (and its count in the top bar) until marked
done; a chat renamed, archived, unarchived and deleted from its ⋯ menu; the chat list's
selection. Same server and browser as test_browser (its fixtures)."""

import re

import pytest

from tests.e2e.looks import assert_fits, assert_readable
from tests.e2e.test_browser import CHROMIUM, create_chat, expect, new_context, send_prompt, status

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
LOOKS = [("desktop", "light"), ("desktop", "dark"), ("phone", "light"), ("phone", "dark")]


@pytest.fixture(params=LOOKS, ids=["-".join(look) for look in LOOKS])
def look(request, browser, base_url, logged_in, console_errors):
    width, scheme = request.param
    opened = new_context(browser, base_url, logged_in, console_errors, width, scheme)
    opened.on("page", lambda page: page.on("dialog", lambda dialog: dialog.accept()))
    yield opened, f"{width[0]}{scheme[0]}"
    opened.close()


def open_menu(page) -> None:
    page.click("#chat-header summary")


def test_a_failed_turn_waits_in_the_inbox_until_done(look):
    context, tag = look
    page = context.new_page()
    create_chat(page, f"inbox-{tag}", peers=False)
    send_prompt(page, "fail")
    expect(status(page)).to_have_text("Failed")
    page.reload()
    expect(page.locator("#inbox-count")).not_to_have_text("")
    page.get_by_role("link", name=re.compile(r"^Inbox")).click()
    page.wait_for_url("**/inbox/")
    item = page.locator(".inbox-item", has_text=f"inbox-{tag}")
    expect(item).to_have_count(1)
    expect(item).to_contain_text("A turn failed")
    assert_fits(page)
    assert_readable(page)
    before = int(page.locator("#inbox-count").inner_text() or 0)
    item.get_by_role("button", name=re.compile("^Mark done")).click()
    page.wait_for_url("**/inbox/")
    expect(page.locator(".inbox-item", has_text=f"inbox-{tag}")).to_have_count(0)
    assert int(page.locator("#inbox-count").inner_text() or 0) == before - 1
    page.get_by_role("link", name="Show done items too").click()
    expect(page.locator(".inbox-item.done", has_text=f"inbox-{tag}")).to_have_count(1)


def test_a_chat_is_renamed_archived_and_deleted_from_its_menu(look):
    context, tag = look
    page = context.new_page()
    chat_url = create_chat(page, f"life-{tag}", peers=False)
    open_menu(page)
    page.fill("#chat-header .rename-form input[name=name]", f"renamed-{tag}")
    page.click("#chat-header .rename-form button")
    expect(page.locator("#chat-header h1")).to_have_text(f"renamed-{tag}")
    open_menu(page)
    assert_fits(page)
    assert_readable(page)
    page.get_by_role("button", name="Archive", exact=True).click()
    expect(page.locator("#chat-header .badge.archived")).to_have_text("Archived")
    page.goto("/chats/")
    expect(page.locator(".chat-card", has_text=f"renamed-{tag}")).to_have_count(0)
    page.get_by_role("link", name=re.compile(r"^Archived \(")).click()
    expect(page.locator(".chat-card", has_text=f"renamed-{tag}")).to_have_count(1)
    assert_fits(page)
    assert_readable(page)
    page.goto(chat_url)
    open_menu(page)
    page.get_by_role("button", name="Unarchive", exact=True).click()
    expect(page.locator("#chat-header .badge.archived")).to_have_count(0)
    open_menu(page)
    delete = page.get_by_role("button", name="Delete…")
    assert "a deleted chat" in delete.get_attribute("data-confirm")
    delete.click()
    page.wait_for_url("**/chats/")
    expect(page.locator(".chat-card", has_text=f"renamed-{tag}")).to_have_count(0)
    assert page.request.get(chat_url).status == 404


def test_the_chat_list_archives_a_selection(look):
    context, tag = look
    page = context.new_page()
    names = [f"pick-{tag}-{n}" for n in (1, 2)]
    for name in names:
        create_chat(page, name, peers=False)
    page.goto("/chats/")
    for name in names:
        page.get_by_role("checkbox", name=f"Select {name}").check()
    assert_fits(page)
    page.locator("#chat-selection").get_by_role("button", name="Archive").click()
    page.wait_for_url("**/chats/")
    for name in names:
        expect(page.locator(".chat-card", has_text=name)).to_have_count(0)
    page.goto("/chats/?archived=1")
    for name in names:
        page.get_by_role("checkbox", name=f"Select {name}").check()
    page.locator("#chat-selection").get_by_role("button", name="Delete…").click()
    page.wait_for_url("**/chats/")
    page.goto("/chats/?archived=1")
    for name in names:
        expect(page.locator(".chat-card", has_text=name)).to_have_count(0)
