"""Everything one CLI needs is reachable from its adapter: its modes, its settings
folder, its attach files and its hooks' words; nothing about one CLI is decided
by `if chat.agent == X` elsewhere."""

import importlib.machinery
import importlib.util
import re
from pathlib import Path

import pytest

from agents.adapters import ADAPTERS
from agents.adapters.cli import CliAdapter
from agents.attach import BUILDERS, EDITS
from agents.errors import AgentUnavailable
from agents.hooks.clis import CLIS as HOOK_CLIS
from agents.hooks.payloads import Event
from chats import agent_kinds
from chats.models import Chat

ROOT = Path(__file__).resolve().parents[2]
CLI_KINDS = ("claude-code", "codex", "gemini")


def hook_script():
    path = ROOT / "bin" / "crosstalk-hook"
    loader = importlib.machinery.SourceFileLoader("crosstalk_hook", str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", CLI_KINDS)
def test_it_each_cli_adapter_names_its_attach_files_and_hooks(kind):
    adapter = ADAPTERS[kind]
    assert adapter.attach.build is BUILDERS[kind] and adapter.attach.edits is EDITS[kind]
    assert adapter.hooks is HOOK_CLIS[kind]
    assert kind in hook_script().CLIS


def test_it_the_hook_script_knows_every_clis_finishing_event():
    finishing = {
        name
        for kind in CLI_KINDS
        for name, event in ADAPTERS[kind].hooks.events.items()
        if event == Event.FINISHING
    }
    assert finishing == set(hook_script().STOP_EVENTS)


@pytest.mark.parametrize("kind", [*CLI_KINDS, "demo", "command"])
def test_it_chats_learns_each_kinds_modes_from_its_adapter(kind):
    adapter = ADAPTERS[kind]
    assert agent_kinds.permission_modes(kind) == adapter.permission_modes
    assert agent_kinds.default_mode(kind) == adapter.default_permission_mode
    if adapter.permission_modes:
        assert adapter.default_permission_mode in adapter.permission_modes


def test_it_has_attach_files_for_every_kind_that_takes_an_attached_session():
    attached = [kind for kind in Chat.Agent.values if agent_kinds.takes_attached_session(kind)]
    assert sorted(attached) == sorted(BUILDERS) == sorted(CLI_KINDS)


@pytest.mark.parametrize("kind", CLI_KINDS)
def test_it_a_blank_mode_runs_as_the_adapters_default(kind):
    adapter = ADAPTERS[kind]()
    chat = Chat(agent=kind, permission_mode="")
    assert adapter.permission_mode(chat) == adapter.default_permission_mode


@pytest.mark.parametrize("kind", CLI_KINDS)
def test_it_an_unknown_stored_mode_fails_the_turn_rather_than_run_with_another(kind):
    # A row from before modes were checked at creation: never silently swapped.
    chat = Chat(agent=kind, permission_mode="--dangerously-skip-permissions")
    with pytest.raises(AgentUnavailable, match="is not one of"):
        ADAPTERS[kind]().permission_mode(chat)


def test_it_no_module_outside_a_clis_own_branches_on_its_kind():
    pattern = re.compile(r"agent\s*==\s*(Agent|Chat\.Agent)\.(CLAUDE_CODE|CODEX|GEMINI)")
    offenders = [
        str(path.relative_to(ROOT))
        for app in ("agents", "chats", "peers")
        for path in (ROOT / app).rglob("*.py")
        if pattern.search(path.read_text())
    ]
    assert offenders == []


def test_it_only_cli_adapters_have_a_settings_folder_of_their_own():
    own = {kind for kind, adapter in ADAPTERS.items() if getattr(adapter, "config_subfolder", "")}
    assert own == {"codex"}
    assert all(issubclass(ADAPTERS[kind], CliAdapter) for kind in CLI_KINDS)
