"""The admin page in a real browser: the metrics refresh by themselves (htmx polling)
without touching a value being typed into the limits form, and the window links swap
the metrics in place. Skipped where Playwright or /usr/bin/chromium is missing."""

from collections.abc import Iterator

import pytest

from tests.e2e.test_browser import CHROMIUM, server_env
from tests.servers import manage, start_server, stop_server

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
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
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "seed_messages", "--count", "300", "--accounts", "2")
    manage(env, "shell", "--no-imports", "-c", MAKE_ADMIN)
    server, url = start_server(env)
    try:
        yield url
    finally:
        stop_server(server)


def test_it_refreshes_the_metrics_and_keeps_what_you_type(base_url):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(base_url=base_url)
            page.goto("/accounts/login/")
            page.fill("input[name=username]", "root")
            page.fill("input[name=password]", "root-password-1")
            page.click("button[type=submit]")
            page.goto("/internal/admin/peers?window=hour")
            metrics = page.locator("#admin-metrics")
            metrics.evaluate("element => { element.dataset.first = 'yes'; }")
            page.fill("input[name=chat_per_hour]", "77")
            # The section is swapped for a fresh one (without the mark) within a poll or two.
            expect(page.locator("#admin-metrics:not([data-first])")).to_have_count(
                1, timeout=15_000
            )
            assert page.input_value("input[name=chat_per_hour]") == "77"
            page.click("text=Last week")
            expect(page.locator(".adm-windows a.on")).to_have_text("Last week")
            assert "window=week" in page.url
            expect(page.locator("#admin-metrics svg").first).to_be_visible()
        finally:
            browser.close()
