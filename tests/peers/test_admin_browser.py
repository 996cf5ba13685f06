"""The admin page in a real browser: the metrics refresh by themselves (htmx polling)
without touching a value being typed into the limits form, and the window links swap
the metrics in place; at 1440 and 390 px, light and dark, it fits and reads.
Skipped where Playwright or /usr/bin/chromium is missing."""

from collections.abc import Iterator

import pytest

from tests.browsers import CHROMIUM, chromium
from tests.e2e.looks import assert_fits, assert_readable
from tests.e2e.test_browser import server_env
from tests.servers import manage, migrate, start_server, stop_server

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium"),
    pytest.mark.embedded_only,  # its own server on its own SQLite file, whatever the backend
]
MAKE_ADMIN = (
    "from accounts.models import User; "
    "User.objects.create_user('root', password='root-password-1', is_staff=True)"
)


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = server_env(tmp_path_factory.mktemp("admin") / "db.sqlite3")
    migrate(env)
    manage(env, "seed_messages", "--count", "300", "--accounts", "2")
    manage(env, "shell", "--no-imports", "-c", MAKE_ADMIN)
    server, url = start_server(env)
    try:
        yield url
    finally:
        stop_server(server)


def test_it_refreshes_the_metrics_and_keeps_what_you_type(admin_browser, base_url):
    page = admin_browser.new_page(base_url=base_url)
    try:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "root")
        page.fill("input[name=password]", "root-password-1")
        page.click("button[type=submit]")
        page.clock.install()  # the page's timers, moved on by the test below
        page.goto("/internal/admin/peers?window=hour")
        metrics = page.locator("#admin-metrics")
        metrics.evaluate("element => { element.dataset.first = 'yes'; }")
        page.fill("input[name=chat_per_hour]", "77")
        # The section is swapped for a fresh one (without the mark) at the next poll (5 s).
        page.clock.fast_forward(5_000)
        expect(page.locator("#admin-metrics:not([data-first])")).to_have_count(1, timeout=15_000)
        assert page.input_value("input[name=chat_per_hour]") == "77"
        page.click("text=Last week")
        expect(page.locator(".adm-windows a.on")).to_have_text("Last week")
        assert "window=week" in page.url
        expect(page.locator("#admin-metrics svg").first).to_be_visible()
    finally:
        page.context.close()


@pytest.fixture(scope="module")
def admin_browser() -> Iterator:
    with chromium() as browser:
        yield browser


def admin_page(browser, base_url: str, *, width: int, scheme: str):
    context = browser.new_context(
        base_url=base_url, viewport={"width": width, "height": 844}, color_scheme=scheme
    )
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "root")
    page.fill("input[name=password]", "root-password-1")
    page.click("button[type=submit]")
    page.goto("/internal/admin/peers?window=week")
    expect(page.locator("#admin-metrics svg").first).to_be_visible()
    return page


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1440, 390])
def test_it_the_admin_page_reads_well_at_both_widths_light_and_dark(
    admin_browser, base_url, width, scheme
):
    page = admin_page(admin_browser, base_url, width=width, scheme=scheme)
    try:
        assert_fits(page)
        assert_readable(page)  # the tiles' figures, the window links, the charts' words
        # The charts keep their 12 px words, on a phone too (they scroll inside their card).
        sizes = page.locator(".adm-chart text").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 10, sizes
        # A limit's name reads as words, not one letter per line.
        label = page.locator(".adm-limits label").first.bounding_box()
        assert label["width"] > 120 and label["height"] < 60, label
        tracks = page.locator(".adm-chart .track").first.evaluate("e => getComputedStyle(e).fill")
        card = page.locator(".adm-metrics .card").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert scheme == "light" or tracks != "rgb(241, 243, 245)", (tracks, card)
    finally:
        page.context.close()


def test_it_a_refused_limit_is_named_at_the_top(admin_browser, base_url):
    page = admin_page(admin_browser, base_url, width=390, scheme="light")
    try:
        page.fill("input[name=chat_per_hour]", "-5")
        page.click(".adm-actions button.primary")
        summary = page.locator("#limits-errors")
        expect(summary).to_contain_text("The limits were not saved")
        assert summary.bounding_box()["y"] < 844  # seen without scrolling
        summary.locator("a").first.click()
        expect(page.locator("input[name=chat_per_hour]")).to_be_focused()
    finally:
        page.context.close()
