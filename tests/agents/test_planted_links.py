"""A hosted agent may write its own folders (AGENTS_DIR/<chat>/…, its home, its
CODEX_HOME), so it may plant links there where the next turn's set-up writes. The
server never follows them: the target stays as it was, nothing is made where a link
points, the link itself goes, the turn's own file is written, and the conversation
says so."""

import json
import shutil
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from accounts.actions import check_set_model_credential, do_lend_logins
from agents.adapters import adapter_for
from agents.adapters.setup import chat_folder, hosted_setup
from chats.models import Entry
from tests.agents import test_cli_adapters as cli_tests
from tests.agents.conftest import fresh_turn, prompt, run_all, texts
from tests.agents.test_hosted_process import command_chat
from tests.conftest import own_folder

pytestmark = pytest.mark.django_db(transaction=True)

stand_in = cli_tests.stand_in
hosted_chat = cli_tests.hosted_chat
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed here"
)
OUTSIDE = b'{"the server\'s own": "file"}\n'


@pytest.fixture
def outside(tmp_path) -> Path:
    """A file of the server's that a planted link points at (not 0600: a chmod shows)."""
    path = tmp_path / "servers-own.json"
    path.write_bytes(OUTSIDE)
    path.chmod(0o644)
    return path


@pytest.fixture
def outside_folder(tmp_path) -> Path:
    folder = tmp_path / "servers-own-folder"
    folder.mkdir(mode=0o755)
    return folder


def operator_home(tmp_path: Path, monkeypatch) -> Path:
    """The server's home, with its CLI logins."""
    home = tmp_path / "operator-home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".claude.json").write_text('{"operator": true}')
    (home / ".gemini/oauth_creds.json").write_text('{"access_token": "operator"}')
    monkeypatch.setenv("HOME", str(home))
    return home


def plant(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def untouched(outside: Path) -> bool:
    return outside.read_bytes() == OUTSIDE and outside.stat().st_mode & 0o777 == 0o644


def own_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink() and path.stat().st_mode & 0o777 == 0o600


async def turn_with_notices(chat) -> list[str]:
    turn = await prompt(chat, "hello")
    await run_all()
    assert (await fresh_turn(turn)).error == ""
    return await texts(chat, Entry.Kind.NOTICE)


def noticed(notices: list[str], link: Path) -> bool:
    return any(f"{link} was a link to " in text and "did not follow it" in text for text in notices)


async def test_it_never_follows_a_link_planted_beside_the_chats_settings(
    owner, tmp_path, stand_in, outside
):
    stand_in("claude-code")
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    mcp, hooks = chat_folder(chat) / "mcp.json", chat_folder(chat) / "settings.json"
    plant(mcp, outside)
    plant(hooks, tmp_path / "made-by-a-link.json")  # a link to nothing yet
    notices = await turn_with_notices(chat)

    assert untouched(outside) and not (tmp_path / "made-by-a-link.json").exists()
    assert own_file(mcp) and "Bearer cak_" in mcp.read_text()
    assert own_file(hooks) and "hooks" in json.loads(hooks.read_text())
    assert noticed(notices, mcp) and noticed(notices, hooks)


async def test_it_never_follows_links_planted_in_the_home(
    owner, tmp_path, stand_in, outside, outside_folder
):
    """Not lent, so the home is its own: its login file is written there, not through
    the link to a folder of the server's."""
    stand_in("claude-code")
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    login = json.dumps({"claudeAiOauth": {"accessToken": "alice-oat"}})
    await sync_to_async(do_lend_logins)(owner, lent=False)
    await sync_to_async(check_set_model_credential)(
        owner, provider="anthropic", kind="login_file", value=login
    )
    home = chat_folder(chat) / "home"
    plant(home / ".claude", outside_folder)
    notices = await turn_with_notices(chat)

    assert list(outside_folder.iterdir()) == []
    assert oct(outside_folder.stat().st_mode & 0o777) == "0o755"
    assert (home / ".claude").is_dir() and not (home / ".claude").is_symlink()
    assert own_file(home / ".claude/.credentials.json")
    assert (home / ".claude/.credentials.json").read_text() == login
    assert noticed(notices, home / ".claude")


async def test_it_never_follows_a_link_where_the_operators_login_is_copied(
    owner, tmp_path, outside, outside_folder, monkeypatch, settings
):
    """Jailed and lent: the operator's logins are copied into the home, not through the
    links (the set-up alone, so this runs without bubblewrap too)."""
    operator = operator_home(tmp_path, monkeypatch)
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    home = chat_folder(chat) / "home"
    plant(home / ".claude.json", outside)
    plant(home / ".gemini", outside_folder)
    settings.AGENT_SANDBOX = "bwrap"
    setup = await sync_to_async(hosted_setup)(chat, adapter_for(chat), key="cak_test")

    assert untouched(outside) and list(outside_folder.iterdir()) == []
    assert own_file(home / ".claude.json")
    assert (home / ".claude.json").read_text() == (operator / ".claude.json").read_text()
    assert own_file(home / ".gemini/oauth_creds.json")
    assert noticed(setup.notices, home / ".claude.json")
    assert noticed(setup.notices, home / ".gemini")


@needs_bwrap
async def test_it_a_jailed_turn_never_follows_a_link_where_the_operators_login_is_copied(
    owner, tmp_path, outside, monkeypatch, settings
):
    settings.AGENT_SANDBOX = "bwrap"
    operator_home(tmp_path, monkeypatch)
    chat = await sync_to_async(command_chat)(owner, own_folder(owner), "cat ~/.claude.json")
    await sync_to_async(do_lend_logins)(owner, lent=True)
    link = chat_folder(chat) / "home" / ".claude.json"
    plant(link, outside)
    notices = await turn_with_notices(chat)

    assert untouched(outside)
    assert own_file(link) and link.read_text() == '{"operator": true}'
    assert '{"operator": true}' in "".join(await texts(chat))
    assert noticed(notices, link)


async def test_it_never_follows_links_planted_in_codex_home(
    owner, tmp_path, stand_in, outside, outside_folder, monkeypatch
):
    stand_in("codex")
    operator = tmp_path / "operator-codex"
    operator.mkdir()
    (operator / "auth.json").write_text('{"OPENAI_API_KEY": "sk-operator"}')
    monkeypatch.setenv("CODEX_HOME", str(operator))
    chat = await sync_to_async(hosted_chat)(owner, "codex", own_folder(owner, "repo"))
    codex_home = chat_folder(chat) / "codex-home"
    plant(codex_home / "auth.json", outside)
    plant(codex_home / "hooks.json", outside_folder / "hooks.json")
    notices = await turn_with_notices(chat)

    assert untouched(outside) and list(outside_folder.iterdir()) == []
    assert own_file(codex_home / "auth.json")
    assert (codex_home / "auth.json").read_text() == '{"OPENAI_API_KEY": "sk-operator"}'
    assert own_file(codex_home / "hooks.json")
    assert noticed(notices, codex_home / "auth.json")
    assert noticed(notices, codex_home / "hooks.json")


async def test_it_replaces_a_codex_home_that_is_a_link_to_another_folder(
    owner, tmp_path, stand_in, outside_folder
):
    stand_in("codex")
    chat = await sync_to_async(hosted_chat)(owner, "codex", own_folder(owner, "repo"))
    codex_home = chat_folder(chat) / "codex-home"
    plant(codex_home, outside_folder)
    notices = await turn_with_notices(chat)

    assert list(outside_folder.iterdir()) == []
    assert codex_home.is_dir() and not codex_home.is_symlink()
    assert oct(codex_home.stat().st_mode & 0o777) == "0o700"
    assert own_file(codex_home / "hooks.json")
    assert noticed(notices, codex_home)
