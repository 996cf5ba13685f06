"""attach_config: the files, env and flags that attach a CLI session to a chat."""

import json
import sys
import tomllib

import pytest

from agents.attach import attach_config
from agents.attach.common import hook_script

BASE = "http://127.0.0.1:8123"


def config(chat, agent, **kwargs):
    return attach_config(chat, agent, key=chat.agent_key, base_url=BASE + "/", **kwargs)


def test_it_gives_claude_an_mcp_json_and_local_settings(chat):
    cfg = config(chat, "claude-code")
    mcp = json.loads(cfg.files[".mcp.json"])
    server = mcp["mcpServers"]["crosstalk"]
    assert server == {
        "type": "http",
        "url": f"{BASE}/mcp",
        "headers": {"Authorization": f"Bearer {chat.agent_key}"},
    }
    settings = json.loads(cfg.files[".claude/settings.local.json"])
    assert settings["env"] == {"CROSSTALK_URL": BASE, "CROSSTALK_KEY": chat.agent_key}
    assert "mcp__crosstalk__MessageChat" in settings["permissions"]["allow"]
    assert settings["allowedHttpHookUrls"] == [f"{BASE}/api/v1/agent/hooks/*"]
    assert cfg.argv_extra == []


def test_it_runs_claude_session_start_as_a_command_and_the_rest_over_http(chat):
    hooks = json.loads(config(chat, "claude-code").files[".claude/settings.local.json"])["hooks"]
    start = hooks["SessionStart"][0]["hooks"][0]
    assert start["type"] == "command"
    assert start["command"] == f"{sys.executable} -I -S {hook_script()} claude-code"
    assert hook_script().is_file()
    for event in ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        hook = hooks[event][0]["hooks"][0]
        assert hook["type"] == "http"
        assert hook["url"] == f"{BASE}/api/v1/agent/hooks/claude-code"
        assert hook["headers"]["Authorization"] == "Bearer $CROSSTALK_KEY"
        assert hook["allowedEnvVars"] == ["CROSSTALK_KEY"]
    assert hooks["PostToolUse"][0]["matcher"] == "*"


def test_it_names_hosted_claude_files_for_the_runner_folder_and_loads_them_by_flags(chat, tmp_path):
    cfg = config(chat, "claude-code", hosted=True, config_dir=tmp_path)
    assert set(cfg.files) == {"mcp.json", "settings.json"}
    flags = cfg.argv_extra
    assert flags[flags.index("--mcp-config") + 1] == str(tmp_path / "mcp.json")
    assert flags[flags.index("--settings") + 1] == str(tmp_path / "settings.json")
    allowed = flags[flags.index("--allowedTools") + 1].split(",")
    assert allowed == [
        "mcp__crosstalk__ListChats",
        "mcp__crosstalk__ReadChat",
        "mcp__crosstalk__MessageChat",
    ]
    assert cfg.env["CROSSTALK_KEY"] == chat.agent_key


def test_it_gives_codex_a_config_toml_whose_token_comes_from_the_environment(chat):
    cfg = config(chat, "codex")
    toml = tomllib.loads(cfg.files[".crosstalk/codex/config.toml"])
    assert toml["mcp_servers"]["crosstalk"] == {
        "url": f"{BASE}/mcp",
        "bearer_token_env_var": "CROSSTALK_KEY",
        "default_tools_approval_mode": "approve",
    }
    assert chat.agent_key not in cfg.files[".crosstalk/codex/config.toml"]
    hooks = json.loads(cfg.files[".crosstalk/codex/hooks.json"])["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith("crosstalk-hook codex")
    assert "--dangerously-bypass-hook-trust" in cfg.one_liner
    assert f"CROSSTALK_KEY={chat.agent_key}" in cfg.one_liner


def test_it_puts_hosted_codex_files_at_codex_home(chat):
    cfg = config(chat, "codex", hosted=True)
    assert set(cfg.files) == {"config.toml", "hooks.json"}
    assert cfg.argv_extra == ["--dangerously-bypass-hook-trust"]


def test_it_gives_gemini_trusted_mcp_server_and_every_hook(chat, tmp_path):
    cfg = config(chat, "gemini")
    settings = json.loads(cfg.files[".gemini/settings.json"])
    assert settings["mcpServers"]["crosstalk"] == {
        "httpUrl": f"{BASE}/mcp",
        "headers": {"Authorization": "Bearer ${CROSSTALK_KEY}"},
        "trust": True,
    }
    assert set(settings["hooks"]) == {
        "SessionStart",
        "BeforeAgent",
        "AfterTool",
        "AfterAgent",
        "SessionEnd",
    }
    hosted = config(chat, "gemini", hosted=True, config_dir=tmp_path)
    assert set(hosted.files) == {"settings.json"}
    assert hosted.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] == str(tmp_path / "settings.json")


def test_it_gives_a_hosted_turn_nothing_when_the_switch_is_off(chat):
    chat.peers = False
    for agent in ("claude-code", "codex", "gemini"):
        cfg = config(chat, agent, hosted=True)
        assert (cfg.files, cfg.argv_extra, cfg.env) == ({}, [], {})


def test_it_still_attaches_a_session_of_a_chat_whose_switch_is_off(chat):
    # The hooks answer {} and MCP offers no tools until the switch goes on.
    chat.peers = False
    assert ".mcp.json" in config(chat, "claude-code").files


def test_it_refuses_an_agent_without_a_cli(chat):
    with pytest.raises(ValueError, match="agent must be one of"):
        config(chat, "demo")
