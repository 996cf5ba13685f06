"""The attach panel on the chat page: each CLI's commands and files, a new key shown
once and in every tab, only for chats whose agent kind attaches."""

import html
import re

import pytest

from chats.models import Chat
from tests.conftest import make_chat
from tests.peers.hooks import hook, sample


def panel(client, chat, agent=None, method="get", **data):
    """The panel as the chat page's htmx swaps it in (without htmx it is a page of its own)."""
    url = f"/chats/{chat.pk}/attach/" + (f"?agent={agent}" if agent else "")
    return getattr(client, method)(url, data, HTTP_HX_REQUEST="true")


@pytest.fixture
def claude(owner):
    return make_chat(owner, "api", agent="claude-code", peers=True)


def test_it_loads_the_panel_from_the_chat_page_of_a_chat_that_attaches(owner_client, claude, chat):
    page = owner_client.get(f"/chats/{claude.pk}/").content.decode()
    assert f'hx-get="/chats/{claude.pk}/attach/"' in page
    assert "Connect your own session" in page

    demo = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert chat.agent == "demo" and "/attach/" not in demo


@pytest.mark.parametrize("kind", ["demo", "command"])
def test_it_has_no_panel_for_chats_that_cannot_attach(owner_client, owner, kind):
    extra = {"command": "echo hi"} if kind == "command" else {}
    chat = make_chat(owner, "checkout", agent=kind, peers=True, **extra)
    assert panel(owner_client, chat).status_code == 404
    assert panel(owner_client, chat, method="post").status_code == 404
    assert hook(chat, "claude-code", sample("claude-code", "SessionStart")).status_code == 200


def test_it_shows_every_cli_in_real_tabs_with_nothing_to_copy_before_a_key(owner_client, claude):
    body = panel(owner_client, claude).content.decode()
    assert "Connect your own session" in body and "attach-needs-key" in body
    assert "KEY-SHOWN" not in body and "claude mcp add" not in body  # no placeholder to copy
    assert "/bin/crosstalk agent_config" in body and "python manage.py" not in body
    assert "Hooks add delivery between its steps" in body
    assert '<summary id="attach-title">Connect your own session</summary>' in body
    assert "<h2" not in body and "style=" not in body and "<script" not in body
    assert body.count('role="tab"') == 3 and body.count('role="tabpanel"') == 3
    assert body.count('aria-selected="true"') == 1
    assert (
        'id="attach-tab-claude-code"' in body
        and 'aria-selected="true"' in body.split('id="attach-tab-claude-code"')[1][:200]
    )
    assert body.count("data-copy") == body.count("<pre>")
    shown = panel(owner_client, claude, method="post").content.decode()
    assert "crosstalk.config.toml" in shown and "gemini mcp add" in shown  # the other tabs
    assert "claude mcp add --transport http --scope local crosstalk" in shown
    assert ".claude/settings.local.json" in shown
    assert claude.agent_key not in body and "Show a new key" in body
    assert "\\u201c" not in body and "`" not in body


def test_it_shows_a_new_key_once_in_every_tab_and_the_others_keep_working(owner_client, claude):
    body = panel(owner_client, claude, method="post", agent="gemini").content.decode()

    new_key = body.split('class="attach-key">')[1].split("<")[0]
    assert new_key.startswith("cak_") and "shown this once" in body
    for shown in (f"CROSSTALK_KEY={new_key}", f"Bearer {new_key}", f'"CROSSTALK_KEY": "{new_key}"'):
        assert shown in html.unescape(body)  # env files, Claude's command and settings
    assert re.search(r'id="attach-tab-gemini"[^>]*aria-selected="true"', body)
    assert "hx-confirm=" in body and "stops working" in body  # pressing again asks first
    assert hook(claude, "claude-code", sample("claude-code", "SessionStart")).status_code == 200
    assert hook(new_key, "gemini", sample("gemini", "SessionStart")).status_code == 200
    later = panel(owner_client, claude).content.decode()
    assert new_key not in later and 'id="attach-key-' in later and "gemini" in later


def test_it_lists_each_attachment_and_revokes_one(owner_client, claude, outsider_client):
    first = panel(owner_client, claude, method="post", agent="claude-code").content.decode()
    claude_key = first.split('class="attach-key">')[1].split("<")[0]
    second = panel(owner_client, claude, method="post", agent="codex").content.decode()
    codex_key = second.split('class="attach-key">')[1].split("<")[0]
    hook(codex_key, "codex", sample("codex", "SessionStart"))
    listed = panel(owner_client, claude).content.decode()
    assert listed.count('id="attach-key-') == 2 and "ago" in listed  # codex was seen

    key_id = claude.agent_keys.get(cli="claude-code").pk
    url = f"/chats/{claude.pk}/attach/keys/{key_id}/revoke/"
    assert outsider_client.post(url).status_code == 404  # another account: as missing
    assert owner_client.get(url).status_code == 405
    after = owner_client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert "revoked" in after
    assert hook(claude_key, "claude-code", sample("claude-code", "SessionStart")).status_code == 401
    assert hook(codex_key, "codex", sample("codex", "SessionStart")).status_code == 200
    missing = f"/chats/{claude.pk}/attach/keys/999999/revoke/"
    assert owner_client.post(missing).status_code == 404


def test_it_turns_the_switch_on_and_says_so(owner_client, owner):
    quiet = make_chat(owner, "quiet", agent="codex", peers=False)
    body = panel(owner_client, quiet, method="post").content.decode()
    assert "Agent-to-agent was off for quiet: it is on now." in body
    assert Chat.objects.get(pk=quiet.pk).peers


def test_it_answers_404_for_another_accounts_chat(outsider_client, claude):
    assert panel(outsider_client, claude).status_code == 404
    assert panel(outsider_client, claude, method="post").status_code == 404


def test_it_sends_an_anonymous_visitor_to_log_in(client, claude):
    response = panel(client, claude)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_it_revokes_only_a_key_of_this_chat(owner_client, claude, owner):
    other = make_chat(owner, "api-two", agent="codex", peers=True)
    body = panel(owner_client, other, method="post", agent="codex").content.decode()
    key = body.split('class="attach-key">')[1].split("<")[0]
    key_id = other.agent_keys.get().pk

    # The key of another chat of the same account, through this chat's route: as missing.
    response = owner_client.post(f"/chats/{claude.pk}/attach/keys/{key_id}/revoke/")

    assert response.status_code == 404
    assert hook(key, "codex", sample("codex", "SessionStart")).status_code == 200
