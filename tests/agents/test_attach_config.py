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


def test_it_gives_claude_local_settings_and_the_mcp_add_line_never_an_mcp_json(chat):
    cfg = config(chat, "claude-code")
    assert set(cfg.files) == {".claude/settings.local.json"}
    settings = json.loads(cfg.files[".claude/settings.local.json"])
    assert settings["env"] == {"CROSSTALK_URL": BASE, "CROSSTALK_KEY": chat.agent_key}
    assert "mcp__crosstalk__MessageChat" in settings["permissions"]["allow"]
    assert cfg.commands == [
        f"claude mcp add --transport http --scope local crosstalk {BASE}/mcp "
        f"--header 'Authorization: Bearer {chat.agent_key}'"
    ]
    assert (cfg.one_liner, cfg.argv_extra) == ("claude", [])


def test_it_runs_every_attached_claude_hook_as_the_command_that_says_when_it_fails(chat):
    hooks = json.loads(config(chat, "claude-code").files[".claude/settings.local.json"])["hooks"]
    events = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}
    assert set(hooks) == events
    for groups in hooks.values():
        hook = groups[0]["hooks"][0]
        assert hook["type"] == "command"
        assert hook["command"] == f"{sys.executable} -I -S {hook_script()} claude-code"
    assert hook_script().is_file()
    assert hooks["PostToolUse"][0]["matcher"] == "*"
    # Claude Code's own messaging is answered by Crosstalk, and its inbound refused.
    assert hooks["PreToolUse"][0]["matcher"] == "SendMessage|ListAgents"
    settings = json.loads(config(chat, "claude-code").files[".claude/settings.local.json"])
    assert settings["crossSessionInbound"] == "refuse"


def test_it_runs_hosted_claude_session_start_as_a_command_and_the_rest_over_http(chat, tmp_path):
    cfg = config(chat, "claude-code", hosted=True, config_dir=tmp_path)
    settings = json.loads(cfg.files["settings.json"])
    assert settings["allowedHttpHookUrls"] == [f"{BASE}/api/v1/agent/hooks/*"]
    hooks = settings["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["type"] == "command"
    assert settings["crossSessionInbound"] == "refuse"
    for event in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"):
        hook = hooks[event][0]["hooks"][0]
        assert hook["type"] == "http"
        assert hook["url"] == f"{BASE}/api/v1/agent/hooks/claude-code"
        assert hook["headers"]["Authorization"] == "Bearer $CROSSTALK_KEY"
        assert hook["allowedEnvVars"] == ["CROSSTALK_KEY"]
    server = json.loads(cfg.files["mcp.json"])["mcpServers"]["crosstalk"]
    assert server["headers"] == {"Authorization": f"Bearer {chat.agent_key}"}


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
        "mcp__crosstalk__ReadInbox",
    ]
    assert cfg.env["CROSSTALK_KEY"] == chat.agent_key


def test_it_gives_codex_a_profile_whose_token_comes_from_the_environment(chat):
    cfg = config(chat, "codex")
    assert set(cfg.files) == {"$CODEX_HOME/crosstalk.config.toml", ".crosstalk/env"}
    profile = tomllib.loads(cfg.files["$CODEX_HOME/crosstalk.config.toml"])
    assert profile["mcp_servers"]["crosstalk"] == {
        "url": f"{BASE}/mcp",
        "bearer_token_env_var": "CROSSTALK_KEY",
        "default_tools_approval_mode": "approve",
    }
    assert profile["sandbox_mode"] == "workspace-write"
    assert chat.agent_key not in cfg.files["$CODEX_HOME/crosstalk.config.toml"]
    hooks = profile["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith("crosstalk-hook codex")
    assert cfg.files[".crosstalk/env"] == f"CROSSTALK_URL={BASE}\nCROSSTALK_KEY={chat.agent_key}\n"
    assert cfg.one_liner == (
        "env $(cat .crosstalk/env) codex --profile crosstalk --dangerously-bypass-hook-trust"
    )


def test_it_gives_hosted_codex_a_config_toml_and_hooks_json(chat):
    cfg = config(chat, "codex", hosted=True)
    toml = tomllib.loads(cfg.files["config.toml"])
    assert toml["mcp_servers"]["crosstalk"]["bearer_token_env_var"] == "CROSSTALK_KEY"
    assert chat.agent_key not in cfg.files["config.toml"]
    hooks = json.loads(cfg.files["hooks.json"])["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith("crosstalk-hook codex")


def test_it_puts_hosted_codex_files_at_codex_home(chat):
    cfg = config(chat, "codex", hosted=True)
    assert set(cfg.files) == {"config.toml", "hooks.json"}
    assert cfg.argv_extra == ["--dangerously-bypass-hook-trust"]


def test_it_gives_gemini_trusted_mcp_server_and_every_hook(chat, tmp_path):
    cfg = config(chat, "gemini")
    settings = json.loads(cfg.files[".crosstalk/gemini-settings.json"])
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


def test_it_still_shows_the_config_of_a_chat_whose_switch_is_off(chat):
    # agent_config and the panel turn the switch on when they make the key.
    chat.peers = False
    assert ".claude/settings.local.json" in config(chat, "claude-code").files


def test_it_keeps_json_readable_without_escapes(chat):
    cfg = attach_config(chat, "claude-code", key="“placeholder”", base_url=BASE)
    text = cfg.files[".claude/settings.local.json"]
    assert '"CROSSTALK_KEY": "“placeholder”"' in text and "\\u201c" not in text


def test_it_refuses_an_agent_without_a_cli(chat):
    with pytest.raises(ValueError, match="agent must be one of"):
        config(chat, "demo")
