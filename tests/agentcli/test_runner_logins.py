"""The REAL Claude Code, run by Crosstalk's runner for an account the operator lent
nothing: the person sets their own Anthropic key on Settings → Agents (the page, logged
in, with its CSRF token), and the model hears that key, never the operator's."""

import os
import re

import httpx2
import pytest

from tests import servers
from tests.agentcli.clis import FAKE_ANTHROPIC_KEY
from tests.agentcli.runner_site import poll, site_fixture

pytestmark = pytest.mark.agent_cli

BOB_KEY = "sk-ant-bobs-own-key-7Q2x"
PASSWORD = "bob-password-1"


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


site = site_fixture()


def csrf_of(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def set_own_key(url: str, username: str, key: str) -> None:
    """What the person does: log in, open Settings, save their key under Agents."""
    with httpx2.Client(base_url=url, timeout=30, follow_redirects=True) as browser:
        login = browser.get("/accounts/login/")
        form = {
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": csrf_of(login.text),
        }
        assert "/settings/" not in str(browser.post("/accounts/login/", data=form).url)
        page = browser.get("/settings/")
        saved = browser.post(
            "/settings/agents/",
            data={"provider": "anthropic", "kind": "api_key", "value": key, "base_url": "",
                  "csrfmiddlewaretoken": csrf_of(page.text)},
        )  # fmt: skip
        assert saved.status_code == 200 and "…7Q2x" in saved.text and key not in saved.text


def api_key_of(request) -> str:
    return {name.lower(): value for name, value in request.headers.items()}.get("x-api-key", "")


def test_it_a_turn_of_an_account_with_its_own_key_reaches_the_model_with_that_key(site):
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["DATABASE_URL"] = f"sqlite:///{site.db}"
    token = servers.make_people(env, ["bob"], PASSWORD, runners=True)["bob"]
    set_own_key(site.url, "bob", BOB_KEY)
    folder = site.work.parent / "bob" / "bobs"  # bob's own folder, beside alice's
    folder.mkdir(parents=True)
    body = {"name": "bobs", "agent": "claude-code", "folder": str(folder), "peers": True}
    chat = site.call("POST", "/api/v1/chats", body, secret=token).json()
    before = len(site.fake.model_calls("anthropic"))

    response = site.call(
        "POST", f"/api/v1/chats/{chat['id']}/prompts", {"text": "[[say own-key]]"}, secret=token
    )
    assert response.status_code == 202, response.text
    # site.until reads as alice; this chat is bob's.
    poll(lambda: site.ended_turns(chat) >= 1, "bob's turn to end")
    (status,) = site.query("select status from chats_chat where id = ?", chat["id"])[0]

    assert status == "idle", site.notes(chat)
    assert site.entries(chat, "answer")[-1] == "own-key"
    calls = site.fake.model_calls("anthropic")[before:]
    assert calls and {api_key_of(call) for call in calls} == {BOB_KEY}
    assert not any(FAKE_ANTHROPIC_KEY in str(call.headers) for call in calls)
