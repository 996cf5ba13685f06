"""What happens while the person looks: a chat that answers or asks them is announced once
by a desktop notification (opt-in), and a message's card marks its new state as it changes.
Same server and browser as test_browser (its fixtures); skipped where Chromium is missing."""

import re

import pytest

from tests.e2e.test_browser import (
    CHROMIUM,
    card,
    expect,
    new_context,
    open_chat,
    ran_chats,
    send_from_tab,
    stop_chat,
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")

# The page's Notification replaced by one that records what it would show; granted.
RECORD_NOTIFICATIONS = """window.shown = [];
window.Notification = class { constructor(title, options) {
  window.shown.push(title + ' | ' + options.body); }
  static get permission() { return 'granted'; }
  static requestPermission() { return Promise.resolve('granted'); } };"""


@pytest.fixture
def watchers(browser, base_url, logged_in, console_errors):
    """Opens browsers of the person whose notifications are recorded, granted."""
    opened = []

    def open_one(turned_on: bool = False):
        context = new_context(browser, base_url, logged_in, console_errors)
        context.grant_permissions(["notifications"])
        context.add_init_script(RECORD_NOTIFICATIONS)
        if turned_on:  # as if the person had turned them on in this browser before
            context.add_init_script(
                "if (location.protocol.startsWith('http')) "
                "localStorage.setItem('crosstalk-notify', 'on')"
            )
        opened.append(context)
        return context

    yield open_one
    for context in opened:
        context.close()


# How long live.js marks a card whose state changed.
MARK_MS = 4000


def watching(context):
    """The chat list with notifications turned on and its live socket connected."""
    page = context.new_page()
    page.goto("/chats/")
    expect(page.locator(".live-dot.on")).to_have_count(1)
    toggle = page.locator("#notify-toggle")
    if toggle.inner_text() != "Notifications on":
        toggle.click()
    expect(toggle).to_have_text("Notifications on")
    return page


def resync(page) -> None:
    """What a reconnect does: every live part refetched; waits for the list's answer."""
    with page.expect_response(re.compile(r"/chats/")):
        page.evaluate("document.body.dispatchEvent(new CustomEvent('live-resync'))")


def shown(page) -> list[str]:
    return page.evaluate("window.shown")


def test_it_a_chat_answering_you_is_notified_once_never_on_load_nor_after_a_resync(
    context, watchers
):
    watcher = watchers()
    page = watching(watcher)
    asker, _ = ran_chats(context, "note-asker", "note-answerer")
    asker.bring_to_front()
    asker.locator("summary", has_text="Send a message").click()
    asker.check("#peers-send input[name=sender][value=you]")
    send_from_tab(asker, "note-answerer", "which port do you use?")
    # The demo agent takes it as its prompt and answers the person, not a chat.
    page.wait_for_function("() => window.shown.length > 0")  # a function: no eval (CSP)
    (told,) = shown(page)
    assert told.startswith("Crosstalk: note-answerer answered you | "), told
    assert "which port do you use?" in told
    resync(page)
    assert shown(page) == [told]
    # Another tab of that browser, opened afterwards, and a browser opening the list for
    # the first time: old news, never said again.
    for later in (watching(watcher), watching(watchers(turned_on=True))):
        expect(later.locator("#asks-for-you [data-ask]").first).to_be_attached()
        resync(later)
        assert shown(later) == []


def test_it_a_card_marks_its_new_state_as_it_changes_and_keeps_the_trail_with_times(
    context, second
):
    sender, held = ran_chats(context, "mark-sender", "mark-held")
    stop_chat(held)
    # The watcher's clock is the page's own, moved on by the test when a mark should go
    # (live.js keeps a mark MARK_MS), instead of waiting it out.
    second.clock.install()
    watcher = open_chat(second, "mark-sender")
    send_from_tab(sender, "mark-held", "Which region?")
    seen = card(watcher, "Which region?")
    expect(seen.locator(".state-word").first).to_have_text("Queued — held until you write")
    # New to the page, its state was marked; the mark goes after a moment.
    expect(seen).to_have_class(re.compile("state-changed"))
    second.clock.fast_forward(MARK_MS)
    expect(seen).not_to_have_class(re.compile("state-changed"))

    held.reload()
    held.bring_to_front()
    held.locator("#composer input[name=send_queued]").check()
    held.fill("#composer-text", "go on")
    held.keyboard.press("Control+Enter")

    expect(seen.locator(".state-word").first).to_have_text("Delivered — as a turn's prompt")
    expect(seen).to_have_class(re.compile("state-changed"))
    ring = seen.locator(".msg-foot .state-word").first.evaluate(
        "e => getComputedStyle(e).boxShadow"
    )
    assert ring != "none", ring
    # One card a message on the page: the Peers tab filters the conversation.
    expect(watcher.locator(".msg", has_text="Which region?")).to_have_count(1)
    # The trail keeps each state seen, with its time, after the mark has gone.
    expect(seen.locator(".msg-trail")).to_have_text(
        re.compile(r"^Sent \d\d:\d\d:\d\d, delivered \d\d:\d\d:\d\d \(.+ later\)$")
    )
    second.clock.fast_forward(MARK_MS)
    expect(seen).not_to_have_class(re.compile("state-changed"))
