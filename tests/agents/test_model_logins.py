"""Whose model login a hosted turn gets: the account's own (Settings → Agents) and none
of the operator's, the operator's where an admin lent them, else the turn fails saying
how to get one."""

import json
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from accounts.actions import check_set_model_credential, do_lend_logins
from agents import sandbox
from agents.adapters import adapter_for
from agents.adapters.setup import chat_folder, hosted_setup
from tests.agents import test_cli_adapters as cli_tests
from tests.agents.conftest import fresh_turn, prompt, run_all
from tests.agents.test_hosted_process import answer_of
from tests.conftest import own_folder

pytestmark = pytest.mark.django_db(transaction=True)

# The stand-in CLI that logs how it was started (argv, stdin, environment).
stand_in = cli_tests.stand_in
hosted_chat, runs = cli_tests.hosted_chat, cli_tests.runs
OPERATORS = {
    "ANTHROPIC_API_KEY": "sk-operator-anthropic",
    "ANTHROPIC_AUTH_TOKEN": "operator-gateway-token",
    "CLAUDE_CODE_OAUTH_TOKEN": "operator-oauth",
    "OPENAI_API_KEY": "sk-operator-openai",
    "GEMINI_API_KEY": "operator-gemini",
    "GOOGLE_APPLICATION_CREDENTIALS": "/srv/operator/service-account.json",
    "FAKE_PROVIDER_KEY": "operator-passed-by-name",
}
OWN_KEY = "sk-alice-own-key-1234"
OPERATOR_LOGINS = {
    ".claude.json": '{"oauthAccount": {"emailAddress": "operator@example.com"}}',
    ".claude/.credentials.json": '{"claudeAiOauth": {"accessToken": "operator-oat"}}',
    ".gemini/oauth_creds.json": '{"access_token": "operator-ya29"}',
}


@pytest.fixture
def operator(monkeypatch, tmp_path, settings):
    """The server's own provider keys and CLI logins, as an operator sets them."""
    home = tmp_path / "operator-home"
    for relative, content in OPERATOR_LOGINS.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(content)
    monkeypatch.setenv("HOME", str(home))
    for name, value in OPERATORS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/model")
    settings.AGENT_ENV_PASS = ["FAKE_PROVIDER_KEY"]
    return home


@pytest.fixture
def recorder(stand_in, monkeypatch):
    """The stand-in CLI, logging its whole environment."""
    chosen = 'if k.startswith(("CROSSTALK", "CODEX",'
    assert chosen in cli_tests.STAND_IN
    logs_all = cli_tests.STAND_IN.replace(chosen, 'if k.startswith(("",')
    monkeypatch.setattr(cli_tests, "STAND_IN", logs_all)
    return stand_in


@sync_to_async
def not_lent_chat(owner, kind: str, folder: Path, credential: str = "", **fields):
    chat = hosted_chat(owner, kind, folder, **fields)
    do_lend_logins(owner, lent=False)
    if credential:
        provider = {"claude-code": "anthropic", "codex": "openai", "gemini": "google"}[kind]
        check_set_model_credential(owner, provider=provider, kind="api_key", value=credential)
    return chat


async def one_run(log: Path, chat) -> dict:
    turn = await prompt(chat, "hello")
    await run_all()
    assert (await fresh_turn(turn)).error == ""
    (run,) = runs(log)
    return run


def operators_in(env: dict) -> set[str]:
    return {name for name, value in OPERATORS.items() if env.get(name) == value}


@pytest.mark.parametrize(
    ("kind", "variable"),
    [
        ("claude-code", "ANTHROPIC_API_KEY"),
        ("codex", "OPENAI_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
    ],
)
async def test_it_gives_a_cli_the_accounts_own_key_and_none_of_the_operators(
    kind, variable, owner, tmp_path, recorder, operator
):
    log = recorder(kind)
    chat = await not_lent_chat(owner, kind, own_folder(owner, "repo"), OWN_KEY)
    run = await one_run(log, chat)

    assert run["env"][variable] == OWN_KEY
    assert operators_in(run["env"]) == set()
    # Configuration still passes: the model's base URL is not a credential.
    assert ("ANTHROPIC_BASE_URL" in run["env"]) == (kind == "claude-code")
    # Its home is its own, not the operator's (where the operator's logins are).
    assert run["env"]["HOME"] == str(chat_folder(chat) / "home")
    if kind == "codex":  # Codex ignores OPENAI_BASE_URL: a provider of the account's own
        assert 'model_provider="crosstalk-account"' in run["argv"]


async def test_it_a_lent_account_gets_the_operators_keys_as_before(
    owner, tmp_path, recorder, operator
):
    log = recorder("claude-code")
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    run = await one_run(log, chat)

    assert operators_in(run["env"]) >= {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}
    assert run["env"]["HOME"] == str(operator)


async def test_it_an_account_with_neither_fails_the_turn_saying_how_to_fix_it(
    owner, tmp_path, recorder, operator
):
    log = recorder("gemini")
    chat = await not_lent_chat(owner, "gemini", own_folder(owner, "repo"))
    turn = await prompt(chat, "hello")
    await run_all()

    error = (await fresh_turn(turn)).error
    assert "no Google login for Gemini" in error
    assert "Settings → Agents" in error and "`manage.py lend_logins alice`" in error
    assert not log.exists()  # the CLI never started


async def test_it_a_credential_sealed_under_another_secret_key_fails_the_turn(
    owner, tmp_path, recorder, operator, settings
):
    log = recorder("claude-code")
    chat = await not_lent_chat(owner, "claude-code", own_folder(owner, "repo"), OWN_KEY)
    settings.SECRET_KEY = "a-new-secret-key-" + "z" * 40
    turn = await prompt(chat, "hello")
    await run_all()

    error = (await fresh_turn(turn)).error
    assert "SECRET_KEY changed" in error and "enter it again in Settings → Agents" in error
    assert not log.exists()


async def test_it_a_command_chat_has_no_provider_and_is_unchanged(owner, tmp_path, operator):
    said = await answer_of(owner, own_folder(owner), "env")

    # Not lent, no credential: it runs, with what AGENT_ENV_PASS names, as before.
    assert f"FAKE_PROVIDER_KEY={OPERATORS['FAKE_PROVIDER_KEY']}" in said
    assert "ANTHROPIC_API_KEY" not in said


@sync_to_async
def set_up_jailed(chat, settings) -> Path:
    settings.AGENT_SANDBOX = "bwrap"
    hosted_setup(chat, adapter_for(chat), key="cak_test")
    return chat_folder(chat) / sandbox.HOME


def files_in(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): path.read_text()
        for path in folder.rglob("*")
        if path.is_file() and path.name != sandbox.LENT_MARK
    }


async def test_it_no_operator_login_lands_in_a_jailed_home_that_is_not_lent(
    owner, tmp_path, operator, settings
):
    chat = await sync_to_async(hosted_chat)(owner, "claude-code", own_folder(owner, "repo"))
    home = await set_up_jailed(chat, settings)
    assert files_in(home) == OPERATOR_LOGINS  # lent: the operator's, as before

    own = json.dumps({"claudeAiOauth": {"accessToken": "alice-oat"}})
    await sync_to_async(do_lend_logins)(owner, lent=False)
    await sync_to_async(check_set_model_credential)(
        owner, provider="anthropic", kind="login_file", value=own
    )
    home = await set_up_jailed(chat, settings)

    # What the earlier lend left is gone; the account's own login is there.
    assert files_in(home) == {".claude/.credentials.json": own}
    assert oct((home / ".claude/.credentials.json").stat().st_mode & 0o777) == "0o600"
