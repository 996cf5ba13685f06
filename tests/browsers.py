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


def signed_in_state(context) -> dict:
    """What a later context needs to be the person who signed in here: the session's
    cookies. Not the page's localStorage (the unread marks): Playwright restores that
    by loading a page of the origin in every context it opens, 0.4 s of Chromium's CPU
    each time, and a context without it is a new browser of the same person."""
    return {"cookies": context.storage_state()["cookies"], "origins": []}
