"""Settings → Origins in a real browser (issue 37), at 1440×900 and 390×844, light and
dark: the form shows only the chosen kind's fields, an error sits beside its field in
plain words, New secret and Delete ask first, a reload never sends a form again, and the
copy buttons copy. Same server and browser as test_browser (its fixtures)."""

import uuid

import pytest

from tests.e2e.looks import assert_fits, assert_readable
from tests.e2e.test_browser import CHROMIUM, SHOTS, WIDTHS, expect, new_context

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")

PAGE = "/settings/origins/"
# What each kind shows (beside the fields every kind has) and what it must not.
KINDS = {
    "webhook": ({"secret", "callback_url"}, {"handle", "token", "bot_token", "private_key"}),
    "github": (
        {"secret", "handle", "api_url", "token", "app_id", "installation_id", "private_key"},
        {"callback_url", "bot_token"},
    ),
    "slack": ({"secret", "bot_token", "api_url"}, {"callback_url", "handle", "private_key"}),
    "a2a": ({"secret"}, {"callback_url", "handle", "api_url", "token", "bot_token"}),
    "automation": ({"callback_url"}, {"secret", "handle", "api_url", "bot_token"}),
}
EVERY_KIND = {"name", "agent", "repository", "requests_per_hour"}


@pytest.fixture(params=[(w, s) for w in WIDTHS for s in ("light", "dark")], ids="-".join)
def looks(request, browser, base_url, logged_in, console_errors):
    width, scheme = request.param
    opened = new_context(browser, base_url, logged_in, console_errors, width, scheme)
    opened.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    yield opened
    opened.close()


@pytest.fixture
def desktop(browser, base_url, logged_in, console_errors):
    opened = new_context(browser, base_url, logged_in, console_errors)
    yield opened
    opened.close()


def box(page, field: str):
    return page.locator(f"#new-origin .field-{field}")


def add_origin(page, name: str, kind: str = "webhook", **fields) -> None:
    page.goto(PAGE)
    page.select_option("#new-origin select[name=kind]", kind)
    page.fill("#new-origin input[name=name]", name)
    for field, value in fields.items():
        page.fill(f"#new-origin [name={field}]", value)
    page.click("#new-origin button[type=submit]")


def row(page, name: str):
    return page.locator("#origins-card .token-row", has_text=name)


def test_it_shows_only_the_chosen_kinds_fields_and_looks_right(looks, request):
    page = looks.new_page()
    page.goto(PAGE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for kind, (shown, hidden) in KINDS.items():
        page.select_option("#new-origin select[name=kind]", kind)
        for field in shown | EVERY_KIND:
            expect(box(page, field)).to_be_visible()
        for field in hidden:
            expect(box(page, field)).to_be_hidden()
        expect(page.locator("#new-origin label", has_text="Api url")).to_have_count(0)
        if kind == "slack":
            expect(page.get_by_label("Slack signing secret")).to_be_visible()
        assert_fits(page)
        assert_readable(page)
        if kind == "github":
            shot = SHOTS / f"origins-{request.node.callspec.id}.png"
            page.locator("#new-origin").screenshot(path=str(shot))


def test_it_puts_the_error_beside_its_field_and_copies_the_url_and_secret(looks, request):
    page = looks.new_page()
    name = f"hook-{uuid.uuid4().hex[:6]}"
    add_origin(page, name, callback_url="ftp://nowhere")
    error = box(page, "callback_url").locator(".field-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("starting with https://")
    expect(page.locator("#new-origin .field-error")).to_have_count(1)
    expect(page.locator("body")).not_to_contain_text("Value error")
    assert_fits(page)
    assert_readable(page)
    # Fixed and sent again: the secret shows once, with working copy buttons.
    page.fill("#new-origin [name=callback_url]", "https://example.test/answers")
    page.click("#new-origin button[type=submit]")
    secret = page.locator("#new-origin-secret").inner_text()
    page.get_by_role("button", name="Copy secret").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    row(page, name).get_by_role("button", name="Copy URL").click()
    url = row(page, name).locator(".origin-where").inner_text()
    assert page.evaluate("navigator.clipboard.readText()") == url and "/hooks/in/org_" in url
    assert_readable(page)
    assert_fits(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"origins-list-{request.node.callspec.id}.png"))


def test_it_a_reload_never_sends_a_form_again(desktop):
    page = desktop.new_page()
    name = f"prg-{uuid.uuid4().hex[:6]}"
    add_origin(page, name, callback_url="https://example.test/answers")
    expect(page.locator("#new-origin-secret")).to_be_visible()
    posts = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    page.reload()
    expect(row(page, name)).to_have_count(1)
    expect(page.locator("#new-origin-secret")).to_have_count(0)  # shown that once
    row(page, name).get_by_role("button", name="Send a test request").click()
    expect(row(page, name).locator(".test-result")).to_be_visible()
    page.reload()
    expect(row(page, name).locator(".test-result")).to_have_count(0)
    assert len(posts) == 1  # the test request's click; neither reload posted


def test_it_asks_before_a_new_secret_and_before_a_delete(desktop):
    page = desktop.new_page()
    name = f"ask-{uuid.uuid4().hex[:6]}"
    add_origin(page, name, callback_url="https://example.test/answers")
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    page.on("dialog", on_dialog)
    page.reload()
    row(page, name).get_by_role("button", name="New secret").click()
    expect(row(page, name)).to_have_count(1)
    assert asked and "old one stops working" in asked[0]
    expect(page.locator("#new-origin-secret")).to_have_count(0)  # dismissed: nothing made
    asked.clear()
    row(page, name).get_by_role("button", name="Delete").click()
    assert asked and "chats it started stay" in asked[0]
    expect(row(page, name)).to_have_count(1)
    answer["accept"] = True
    row(page, name).get_by_role("button", name="Delete").click()
    expect(row(page, name)).to_have_count(0)
