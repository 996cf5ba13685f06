"""Debian's headless Chromium under Playwright, launched the same way by every browser
test (Playwright's own browser download does not work offline)."""

import contextlib
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]


@contextlib.contextmanager
def chromium() -> Iterator:
    """A launched browser for the block's length."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
