"""The attach panel on the chat page: one-liners and files per CLI, a new key shown once."""

from tests.conftest import make_chat
from tests.peers.hooks import hook, sample


def panel(client, chat, agent=None, method="get"):
    url = f"/chats/{chat.pk}/attach/" + (f"?agent={agent}" if agent else "")
    return getattr(client, method)(url)


def test_it_loads_the_panel_from_the_chat_page(owner_client, chat):
    page = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert f'hx-get="/chats/{chat.pk}/attach/"' in page
    assert "Connect your own session" in page


def test_it_shows_each_cli_with_the_key_left_out(owner_client, owner):
    claude = make_chat(owner, "api", agent="claude-code", peers=True)
    body = panel(owner_client, claude).content.decode()
    assert "Connect your own session" in body and ".claude/settings.local.json" in body
    assert "/mcp" in body and "Show a new key" in body
    assert claude.agent_key not in body
    for cli in ("codex", "gemini"):
        assert f"?agent={cli}" in body

    codex = panel(owner_client, claude, "codex").content.decode()
    assert "config.toml" in codex and "--dangerously-bypass-hook-trust" in codex


def test_it_shows_a_new_key_once_and_the_old_one_stops_working(owner_client, owner):
    claude = make_chat(owner, "api", agent="claude-code", peers=True)
    body = panel(owner_client, claude, "gemini", method="post").content.decode()

    new_key = body.split('class="attach-key">')[1].split("<")[0]
    assert new_key.startswith("cak_") and "shown this once" in body
    assert f"CROSSTALK_KEY={new_key}" in body
    assert hook(claude, "claude-code", sample("claude-code", "SessionStart")).status_code == 401
    assert hook(new_key, "gemini", sample("gemini", "SessionStart")).status_code == 200
    assert new_key not in panel(owner_client, claude).content.decode()


def test_it_answers_404_for_another_accounts_chat(outsider_client, chat):
    assert panel(outsider_client, chat).status_code == 404
    assert panel(outsider_client, chat, method="post").status_code == 404


def test_it_sends_an_anonymous_visitor_to_log_in(client, chat):
    response = panel(client, chat)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
