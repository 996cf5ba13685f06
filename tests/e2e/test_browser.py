"""The real server in a real browser: two tabs stay in step, instant turns end Idle in
both, and an `ask` is answered.

It starts `manage.py serve` on its own SQLite file and drives headless Chromium with
Playwright, so it needs neither pytest-django's test database nor the in-process ORM.
Skipped where Playwright or /usr/bin/chromium is missing."""

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import manage, start_server, stop_server

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

CHROMIUM = Path("/usr/bin/chromium")
EXPECT_MS = 10_000

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


def server_env(db_path: Path) -> dict[str, str]:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db_path}", DEMO_STEP_SECONDS="0.3")
    # Embedded mode: turns run inside the server, pages meet on the in-process layer.
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = server_env(tmp_path_factory.mktemp("e2e") / "db.sqlite3")
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "seed_demo")
    server, url = start_server(env)
    try:
        yield url
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def logged_in(browser, base_url: str) -> dict:
    """The cookies of one log-in as demo / demo, shared by every test's context."""
    context = browser.new_context(base_url=base_url)
    try:
        page = context.new_page()
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "demo")
        page.fill("input[name=password]", "demo")
        page.click("button[type=submit]")
        page.wait_for_url("**/chats/")
        return context.storage_state()
    finally:
        context.close()


@pytest.fixture
def context(browser, base_url: str, logged_in: dict) -> Iterator:
    context = browser.new_context(base_url=base_url, storage_state=logged_in)
    context.set_default_timeout(EXPECT_MS)
    expect.set_options(timeout=EXPECT_MS)
    try:
        yield context
    finally:
        context.close()


def open_chat(context, name: str):
    """A new tab on the chat's page, once its live socket is connected."""
    page = context.new_page()
    page.goto("/chats/")
    page.get_by_role("link", name=name, exact=True).click()
    page.wait_for_url(re.compile(r"/chats/chat_\w+/$"))
    expect(page.locator(".live-dot.on")).to_have_count(1)
    return page


def send_prompt(page, text: str) -> None:
    # A person types in the tab in front; Chromium throttles animation frames behind it,
    # and the click waits on them to see the button stand still.
    page.bring_to_front()
    page.fill("#composer textarea", text)
    page.click("#composer button[type=submit]")


def status(page):
    return page.locator("#chat-header .badge").first


def record_statuses(page) -> None:
    """Notes every status the header shows, so a short `Running` cannot slip by unseen."""
    page.evaluate(
        """() => {
          window.seenStatuses = [];
          const note = () => {
            const badge = document.querySelector('#chat-header .badge');
            if (badge) window.seenStatuses.push(badge.textContent.trim());
          };
          new MutationObserver(note).observe(document.body, {childList: true, subtree: true});
        }"""
    )


# The newest entry is the answer `text` and the header says Idle.
SETTLED = """(text) => {
  const last = document.querySelector('#conversation .entries > :last-child .bubble');
  const badge = document.querySelector('#chat-header .badge');
  return last?.textContent.trim() === text && badge?.textContent.trim() === 'Idle';
}"""


def test_it_keeps_two_tabs_of_a_chat_in_step(context):
    tab1 = open_chat(context, "checkout")
    tab2 = open_chat(context, "checkout")
    record_statuses(tab2)

    send_prompt(tab1, "work 3")

    tab2.wait_for_function("window.seenStatuses.includes('Running')")
    expect(status(tab2)).to_have_text("Idle")
    expect(tab2.locator("#conversation .entry-prompt").last).to_have_text(re.compile("work 3"))
    expect(tab2.locator("#conversation .entry-answer").last).to_contain_text("Worked 3 steps.")
    expect(tab1.locator("#conversation .entry-answer").last).to_contain_text("Worked 3 steps.")
    # Live, not reloaded: the page's own state survived.
    assert tab2.evaluate("Array.isArray(window.seenStatuses)")


def test_it_keeps_the_last_state_of_instant_turns(context):
    """Hints that land mid-refetch or right after a swap must not be lost."""
    tab1 = open_chat(context, "docs")
    tab2 = open_chat(context, "docs")

    for n in range(3):
        send_prompt(tab1, f"ping {n}")
        for page in (tab1, tab2):
            # Polled every 50 ms: expect's backing-off retries would stretch each round.
            page.wait_for_function(SETTLED, arg=f"ping {n}", polling=50)
            expect(page.locator("#conversation .entry-answer .bubble").last).to_have_text(
                f"ping {n}"
            )
            expect(status(page)).to_have_text("Idle")


def test_it_answers_an_ask_and_shows_it_in_both_chats(context):
    checkout = open_chat(context, "checkout")
    payments = open_chat(context, "payments-api")

    send_prompt(checkout, "ask payments-api: which port?")

    answer = checkout.locator("#conversation .entry-answer", has_text="payments-api answered:")
    expect(answer).to_have_count(1)
    sent = checkout.locator("#conversation .peer-card-out", has_text="which port?")
    expect(sent.locator(".peer-answer")).to_contain_text("Answer from payments-api")
    expect(sent.locator(".badge")).to_have_text(re.compile("^Delivered"))
    received = payments.locator("#conversation .entry-peer_in .peer-card", has_text="which port?")
    expect(received.locator(".peer-card-head")).to_contain_text("From")
    expect(received.locator(".peer-card-head")).to_contain_text("checkout")
    expect(status(payments)).to_have_text("Idle")
    # Each Peers tab lists the question and its answer, with their state words.
    for page, asked, answered in ((checkout, "out", "in"), (payments, "in", "out")):
        question = page.locator(f"#peers-live .peer-item.{asked}", has_text="which port?")
        expect(question.locator(".badge")).to_have_text("Delivered — as a turn's prompt")
        reply = page.locator(
            f"#peers-live .peer-item.{answered}", has_text="got checkout's message"
        )
        expect(reply.locator(".badge")).to_have_text(
            "Delivered — as the answer a waiting call took"
        )
