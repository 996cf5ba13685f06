"""The browser suites share test_browser's fixtures: its module-scoped server (one per
module, on its own SQLite file), the browser, the demo log-in and the console watch."""

from tests.e2e.test_browser import (  # noqa: F401 (fixtures for every module here)
    base_url,
    browser,
    console_errors,
    context,
    logged_in,
    person,
    release_db_thread_connection,
    second,
)
