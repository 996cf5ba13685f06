"""The real server in a real browser, as a person uses it: log in, create and connect
chats, watch cards change state live in a second browser, cancel and send on held
messages, read an answer once, use only the keyboard, on a phone's width, with no
console error. It saves the README's screenshots into docs/screenshots/.

It starts `manage.py serve` on its own SQLite file and drives Debian's headless Chromium
with Playwright, so it needs neither pytest-django's test database nor the in-process
ORM. Skipped, with the reason, where Playwright or /usr/bin/chromium is missing."""

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browsers import CHROMIUM, chromium, signed_in_state
from tests.servers import ROOT, manage, migrate, start_server, stop_server

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need Playwright: pip install -e '.[dev]'"
)
expect = sync_api.expect

EXPECT_MS = 10_000

# `UPDATE_SCREENSHOTS=1` rewrites the README's screenshots; otherwise they go to a temp dir,
# so a test run leaves the clone as it was.
SHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "crosstalk-screenshots"
)
WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser tests need Chromium at /usr/bin/chromium (apt install chromium)",
)


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


def server_env(db_path: Path) -> dict[str, str]:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db_path}", DEMO_STEP_SECONDS="0.3", SIGNUP="1")
    # Embedded mode: turns run inside the server, pages meet on the in-process layer.
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = server_env(tmp_path_factory.mktemp("e2e") / "db.sqlite3")
    migrate(env)
    manage(env, "seed_demo")
    server, url = start_server(env)
    try:
        yield url
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with chromium() as launched:
        yield launched


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
        return signed_in_state(context)
    finally:
        context.close()


def new_context(
    browser, base_url: str, state: dict | None, errors: list[str], width="desktop", scheme="light"
):
    """A browser context whose every page reports its console errors into `errors`."""
    w, h = WIDTHS[width]
    context = browser.new_context(
        base_url=base_url,
        storage_state=state,
        viewport={"width": w, "height": h},
        color_scheme=scheme,
    )
    context.set_default_timeout(EXPECT_MS)
    expect.set_options(timeout=EXPECT_MS)

    def watch(page) -> None:
        page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
        page.on("console", lambda m: record_csp_violation(page, m.text))
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))

    # Every page runs under the Content-Security-Policy: any violation is reported
    # (Chromium's own console line and the page's securitypolicyviolation event).
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    context.on("page", watch)
    return context


REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
});
"""
CSP_VIOLATIONS: list[str] = []


def record_csp_violation(page, text: str) -> None:
    if "Content Security Policy" in text or "CSP violation" in text:
        CSP_VIOLATIONS.append(f"{page.url}: {text}")


@pytest.fixture(autouse=True)
def no_csp_violation() -> Iterator[None]:
    """Every test fails on a CSP violation in any page it opened, even a page whose
    other console errors it does not watch."""
    CSP_VIOLATIONS.clear()
    yield
    assert CSP_VIOLATIONS == []


@pytest.fixture
def console_errors() -> Iterator[list[str]]:
    """Every test fails on a console error of any of its pages."""
    errors: list[str] = []
    yield errors
    assert errors == []


@pytest.fixture
def person(browser, base_url: str, logged_in: dict, console_errors) -> Iterator:
    """Opens browser contexts of the logged-in person and closes them after the test."""
    opened = []

    def open_context():
        opened.append(new_context(browser, base_url, logged_in, console_errors))
        return opened[-1]

    yield open_context
    for context in opened:
        context.close()


@pytest.fixture
def context(person):
    return person()


@pytest.fixture
def second(person):
    """Another browser (its own context) of the same person."""
    return person()


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


def create_chat(page, name: str, *, peers: bool = True, agent: str = "demo") -> str:
    """Through the New chat form; answers the chat page's path."""
    page.goto("/chats/")
    page.fill("#id_name", name)
    page.fill("#id_repository", f"{name}-repo")
    page.fill("#id_branch", "main")
    page.select_option("#id_agent", agent)
    page.set_checked("#id_peers", peers)
    page.click("#new-chat button[type=submit]")
    page.wait_for_url(re.compile(r"/chats/chat_\w+/$"))
    expect(page.locator(".live-dot.on")).to_have_count(1)
    return page.url


def run_once(page, text: str = "hello") -> None:
    """A chat is reachable once it ran: one instant turn, back to Idle."""
    send_prompt(page, text)
    expect(page.locator("#conversation .entry-answer").last).to_contain_text(text)
    expect(status(page)).to_have_text("Idle")


def ran_chats(context, *names: str) -> list:
    """New chats, made through the form, that each ran once (so others can reach them)."""
    pages = []
    for name in names:
        page = context.new_page()
        create_chat(page, name)
        run_once(page)
        pages.append(page)
    return pages


def pick(page, select: str, name: str) -> None:
    """Choose the chat of that name in a chat list (options read "name · repository")."""
    option = page.locator(f"{select} option", has_text=re.compile(rf"^{re.escape(name)}( ·|$)"))
    page.select_option(select, value=option.get_attribute("value"))


def send_from_tab(page, to: str, text: str) -> None:
    page.bring_to_front()
    if not page.locator("#peers-send").is_visible():
        page.locator("summary", has_text="Send a message").click()
    pick(page, "#send-to", to)
    page.fill("#send-text", text)
    page.click("#peers-send button[type=submit]")
    # The answer is a fresh form: the message box empty, the notice naming the chat.
    expect(page.locator("#send-text")).to_have_value("")
    expect(page.locator("#peers-sent")).to_contain_text(f"Sent to {to}")


def stop_chat(page) -> None:
    page.bring_to_front()
    page.click("#chat-header summary")
    page.click("#chat-header .menu-body button.menu-item")
    expect(status(page)).to_have_text("Stopped")


def card(page, text: str):
    return page.locator("#conversation .msg", has_text=text)


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{page.url} is {width}px wide"


def test_it_logs_in_and_shows_the_chats_as_live_cards(context):
    page = context.new_page()
    page.goto("/chats/")
    expect(page.locator(".chat-card")).to_have_count(4)  # the seed's
    expect(page.locator('.chat-card[data-filter^="checkout "]')).to_contain_text("feat/cart")
    page.fill("#chat-filter", "payme")
    expect(page.locator(".chat-card:visible")).to_have_count(1)
    expect(page.locator(".chat-card:visible")).to_contain_text("payments-api")


def test_it_creates_two_chats_and_connects_them_with_a_brief(context, second):
    api, _web = ran_chats(context, "orders-api", "orders-web")
    watcher = open_chat(second, "orders-web")

    api.bring_to_front()
    api.locator("summary", has_text="Connect a chat").click()
    pick(api, "#connect-other", "orders-web")
    api.fill("#connect-brief", "Agree on the **order** fields.")
    api.click("#peers-connect button[type=submit]")

    expect(api.locator("#peers-connect .notice")).to_have_text(
        "Connected: each chat got your brief."
    )
    brief = card(watcher, "Agree on the order fields.")
    expect(brief).to_contain_text("From")
    expect(brief.locator("strong")).to_have_text("order")  # Markdown, rendered
    expect(brief.locator(".state-word").first).to_have_text(re.compile("^Delivered"))
    # The other browser's Send list took in the chat that was just switched on.
    expect(watcher.locator("#send-to option", has_text="orders-api")).to_have_count(1)


def test_it_moves_a_card_from_queued_to_delivered_live_in_a_second_browser(context, second):
    sender, held = ran_chats(context, "cart-sender", "cart-held")
    stop_chat(held)
    watcher = open_chat(second, "cart-sender")

    send_from_tab(sender, "cart-held", "Which **currency**?")
    seen = card(watcher, "Which currency?")
    expect(seen.locator(".state-word").first).to_have_text("Queued — held until you write")

    # Send on with my next message: the held message goes with the person's prompt.
    held.reload()
    expect(
        card(held, "Which currency?").get_by_role("link", name="Send on with my next message")
    ).to_be_visible()
    card(held, "Which currency?").get_by_role("link", name="Send on with my next message").click()
    expect(held.locator("#composer-text")).to_be_focused()
    expect(held.locator("#composer input[name=send_queued]")).to_be_checked()
    held.keyboard.type("carry on")
    held.keyboard.press("Control+Enter")

    expect(seen.locator(".state-word").first).to_have_text("Delivered — as a turn's prompt")
    # One card a message on the page: the Peers tab filters the conversation.
    expect(watcher.locator(".msg", has_text="Which currency?")).to_have_count(1)
    expect(watcher.locator("#peers-messages .msg")).to_have_count(0)


def test_it_removes_a_message_held_for_a_stopped_chat(context):
    sender, held = ran_chats(context, "rm-sender", "rm-held")
    stop_chat(held)

    send_from_tab(sender, "rm-held", "never mind this")
    message = card(sender, "never mind this")
    expect(message.locator(".state-word").first).to_have_text("Queued — held until you write")
    message.get_by_role("button", name="Remove").click()

    expect(message.locator(".state-word").first).to_have_text("Cancelled — removed from the queue")
    expect(card(held, "never mind this").locator(".state-word").first).to_have_text(
        "Cancelled — removed from the queue"
    )


def test_it_shows_an_answer_exactly_once(context):
    checkout = open_chat(context, "checkout")
    send_prompt(checkout, "ask payments-api: which port?")

    asked = card(checkout, "which port?")
    expect(asked.locator(".msg-answer")).to_contain_text("payments-api answered")
    expect(asked.locator(".state-word").first).to_have_text(re.compile("^Delivered"))
    expect(status(checkout)).to_have_text("Idle")
    answer = asked.locator(".msg-answer .msg-text").inner_text()
    conversation = checkout.locator("#conversation .entries").inner_text()
    assert conversation.count(answer) == 1, conversation
    tab = checkout.locator("#peers-messages").inner_text()
    assert answer not in tab and "payments-api" in tab, tab  # a filter, not a second card
    assert "payments-api answered:" not in conversation


def test_it_renders_a_hostile_message_as_text(context):
    checkout = open_chat(context, "checkout")
    hostile = (
        '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> '
        "[x](javascript:window.pwned=3)"
    )
    send_from_tab(checkout, "payments-api", hostile)
    payments = open_chat(context, "payments-api")

    shown = card(payments, "onerror")
    expect(shown.locator(".msg-text").first).to_contain_text('<img src=x onerror="window.pwned=1">')
    expect(shown.locator("img, script, a[href^=javascript]")).to_have_count(0)
    for page in (checkout, payments):
        assert page.evaluate("window.pwned") is None


def test_it_sends_with_the_keyboard_alone(context):
    page = open_chat(context, "docs")
    page.bring_to_front()
    page.keyboard.press("Tab")  # the first stop is the skip link
    expect(page.locator(".skip-link")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#composer-text")).to_be_focused()
    page.keyboard.type("first line")
    page.keyboard.press("Enter")  # a new line, not a send
    page.keyboard.type("second line")
    page.keyboard.press("Control+Enter")

    expect(page.locator("#conversation .entry-prompt").last).to_contain_text("second line")
    expect(page.locator("#composer-text")).to_be_focused()
    expect(page.locator("#composer-text")).to_have_value("")
    # Esc closes the ⋯ menu and gives the focus back to it.
    page.click("#chat-header summary")
    expect(page.locator("#chat-header details.menu")).to_have_attribute("open", "")
    # A live refresh of the header (a push, a resync) leaves the open menu open.
    with page.expect_response(re.compile(r"/header/$")):
        page.evaluate("document.body.dispatchEvent(new CustomEvent('live-resync'))")
    expect(page.locator("#chat-header details.menu")).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(page.locator("#chat-header details.menu[open]")).to_have_count(0)


def test_it_keeps_two_tabs_of_a_chat_in_step(context):
    tab1 = open_chat(context, "checkout")
    tab2 = open_chat(context, "checkout")
    tab2.evaluate(
        """() => {
          window.seenStatuses = [];
          const note = () => {
            const badge = document.querySelector('#chat-header .badge');
            if (badge) window.seenStatuses.push(badge.textContent.trim());
          };
          new MutationObserver(note).observe(document.body, {childList: true, subtree: true});
        }"""
    )
    send_prompt(tab1, "work 3")

    # A function, not a string: a string predicate is eval'd in the page, which the CSP forbids.
    tab2.wait_for_function("() => window.seenStatuses.includes('Running')")
    expect(status(tab2)).to_have_text("Idle")
    expect(tab2.locator("#conversation .entry-answer").last).to_contain_text("Worked 3 steps.")


def showcase(context) -> None:
    """A chat whose cards are in three states: answered, held for a stopped chat, removed."""
    store, stock = ran_chats(context, "storefront", "inventory")
    stop_chat(stock)
    send_prompt(store, "ask payments-api: which port does the payment service listen on?")
    expect(card(store, "which port").locator(".msg-answer")).to_be_visible()
    expect(status(store)).to_have_text("Idle")
    send_from_tab(store, "inventory", "Reserve stock for order `42` before payment.")
    send_from_tab(store, "inventory", "Ignore the message about order 41.")
    card(store, "order 41").get_by_role("button", name="Remove").click()
    expect(card(store, "order 41").locator(".state-word").first).to_contain_text("Cancelled")
    store.close()
    stock.close()


def test_it_fits_a_phone_and_a_desktop(browser, base_url, logged_in, console_errors):
    """(The README's screenshots come from test_screenshots, on a fresh demo.)"""
    shots = Path(tempfile.gettempdir()) / "crosstalk-fit"
    shots.mkdir(parents=True, exist_ok=True)
    setup = new_context(browser, base_url, logged_in, console_errors)
    try:
        showcase(setup)
    finally:
        setup.close()
    for width in WIDTHS:
        context = new_context(browser, base_url, logged_in, console_errors, width)
        full = width == "desktop"
        try:
            page = context.new_page()
            page.goto("/chats/")
            expect(page.locator(".live-dot.on")).to_have_count(1)
            no_sideways_scroll(page)
            page.screenshot(path=str(shots / f"chat-list-{width}.png"), full_page=full)
            page.get_by_role("link", name="storefront", exact=True).click()
            expect(page.locator(".live-dot.on")).to_have_count(1)
            expect(page.locator("#conversation .msg")).to_have_count(3)
            no_sideways_scroll(page)
            page.screenshot(path=str(shots / f"chat-{width}.png"), full_page=full)
            page.locator("#peers-tab").screenshot(path=str(shots / f"peers-tab-{width}.png"))
            for path in ("/activity/", "/settings/", "/accounts/login/"):
                page.goto(path)
                no_sideways_scroll(page)
            page.goto("/activity/")
            page.screenshot(path=str(shots / f"activity-{width}.png"), full_page=False)
        finally:
            context.close()
    dark = new_context(browser, base_url, logged_in, console_errors, scheme="dark")
    try:
        page = dark.new_page()
        page.goto("/chats/")
        page.get_by_role("link", name="storefront", exact=True).click()
        expect(page.locator(".live-dot.on")).to_have_count(1)
        page.screenshot(path=str(shots / "chat-dark.png"))
    finally:
        dark.close()


def test_it_an_outsider_gets_404_and_hears_nothing(browser, base_url, console_errors):
    owner_context = new_context(browser, base_url, None, [])
    outsider = new_context(browser, base_url, None, [])
    try:
        page = outsider.new_page()
        page.goto("/accounts/signup/")
        page.fill("input[name=username]", "mallory")
        page.fill("input[name=password1]", "a-long-pass-phrase-9")
        page.fill("input[name=password2]", "a-long-pass-phrase-9")
        page.click("button[type=submit]")
        # Sign-up answers alike for taken and free names: it asks to log in.
        page.wait_for_url("**/accounts/login/")
        page.fill("input[name=username]", "mallory")
        page.fill("input[name=password]", "a-long-pass-phrase-9")
        page.click("button[type=submit]")
        page.wait_for_url("**/chats/")
        expect(page.locator(".chat-card")).to_have_count(0)
        owner = owner_context.new_page()
        owner.goto("/accounts/login/")
        owner.fill("input[name=username]", "demo")
        owner.fill("input[name=password]", "demo")
        owner.click("button[type=submit]")
        owner.get_by_role("link", name="checkout", exact=True).click()
        owner.wait_for_url(re.compile(r"/chats/chat_\w+/$"))
        chat_path = owner.url.removeprefix(base_url)
        for path in ("", "conversation/", "header/", "peers/", "peers/live/"):
            assert page.goto(chat_path + path).status == 404, path
        assert page.goto(f"/activity/?chat={chat_path.split('/')[2]}").status == 404
        page.goto("/chats/")
        page.evaluate(
            "window.hints = 0; document.body.addEventListener('live-any', () => window.hints++)"
        )
        expect(page.locator(".live-dot.on")).to_have_count(1)
        send_prompt(owner, "work 1")
        expect(owner.locator("#conversation .entry-answer").last).to_contain_text("Worked 1 step.")
        assert page.evaluate("window.hints") == 0
    finally:
        owner_context.close()
        outsider.close()


def test_it_every_page_runs_under_the_csp_without_a_violation(context):
    page = context.new_page()
    for path in ["/chats/", "/settings/", "/activity/", "/api/v1/docs", "/accounts/login/"]:
        response = page.goto(path)
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        page.wait_for_load_state("networkidle")
    # The API reference is drawn by its script (no inline script needed).
    page.goto("/api/v1/docs")
    expect(page.locator(".swagger-ui").first).to_be_visible()


def test_it_logging_out_in_one_tab_ends_the_live_socket_of_another(
    browser, base_url, console_errors
):
    # A session of its own: the other tests' shared session stays logged in.
    context = new_context(browser, base_url, None, console_errors)
    chats = context.new_page()
    chats.goto("/accounts/login/")
    chats.fill("input[name=username]", "demo")
    chats.fill("input[name=password]", "demo")
    chats.click("button[type=submit]")
    chats.wait_for_url("**/chats/")
    expect(chats.locator(".live-dot.on")).to_have_count(1)
    other = context.new_page()
    other.goto("/settings/")
    other.get_by_role("button", name=re.compile("Log out")).click()
    other.wait_for_url("**/accounts/login/")
    # The first tab's socket closed with the session; the page reloads to the login page.
    chats.wait_for_url("**/accounts/login/**")
    context.close()


def test_it_asks_first_and_the_card_approves(context):
    sender, asking = ran_chats(context, "ask-sender", "ask-first")
    asking.bring_to_front()
    toggle = asking.locator("#peers-live").get_by_role(
        "switch", name="Ask me before other chats' messages"
    )
    toggle.click()
    expect(toggle).to_have_attribute("aria-checked", "true")

    send_prompt(sender, "tell ask-first: may I rename the field?")
    waiting = card(asking, "may I rename the field?")
    expect(waiting.locator(".state-word").first).to_have_text("Queued — awaiting your approval")
    expect(status(asking)).to_have_text("Idle")  # not woken
    waiting.get_by_role("button", name="Approve").click()

    expect(waiting.locator(".state-word").first).to_have_text(re.compile("^Delivered"))
    told = card(sender, "may I rename the field?")
    expect(told.locator(".state-word").first).to_have_text(re.compile("^Delivered"))
