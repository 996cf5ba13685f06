"""Codex: `config.toml` and `hooks.json` under $CODEX_HOME. The MCP server reads the
key from $CROSSTALK_KEY (bearer_token_env_var), so neither file holds it."""

import json

from agents.attach.common import HOOK_TIMEOUT, SERVER, AttachConfig, Target, as_json, hook_command

CLI = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
# Attached: a CODEX_HOME of its own inside the folder, so your ~/.codex is untouched.
ATTACHED_HOME = ".crosstalk/codex"
BYPASS_TRUST = "--dangerously-bypass-hook-trust"


def config_toml(target: Target) -> str:
    return "\n".join(
        [
            f"[mcp_servers.{SERVER}]",
            f"url = {json.dumps(target.mcp_url)}",
            'bearer_token_env_var = "CROSSTALK_KEY"',
            'default_tools_approval_mode = "approve"',
            "",
            "[features]",
            "codex_hooks = true",
            "",
        ]
    )


def hooks_json() -> str:
    command = {"type": "command", "command": hook_command(CLI), "timeout": HOOK_TIMEOUT}
    table = {}
    for event in EVENTS:
        group = {"hooks": [command]}
        if event == "PostToolUse":
            group = {"matcher": "*", **group}
        table[event] = [group]
    return as_json({"hooks": table})


def build(target: Target) -> AttachConfig:
    prefix = "" if target.hosted else f"{ATTACHED_HOME}/"
    files = {f"{prefix}config.toml": config_toml(target), f"{prefix}hooks.json": hooks_json()}
    if target.hosted:
        return AttachConfig(files=files, env=target.env, argv_extra=[BYPASS_TRUST])
    env = {**target.env, "CODEX_HOME": f"$PWD/{ATTACHED_HOME}"}
    line = " ".join(f"{name}={value}" for name, value in env.items())
    return AttachConfig(
        files=files,
        env=env,
        one_liner=f"{line} codex {BYPASS_TRUST}",
        notes=[
            "Start codex in the folder holding these files with the line above: its "
            "CODEX_HOME is the folder's own, so log in there once (or set OPENAI_API_KEY).",
            f"{BYPASS_TRUST} lets the generated hooks run without a trust prompt.",
        ],
    )
