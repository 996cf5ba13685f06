"""Codex. Attached: a profile of Crosstalk's own in the person's CODEX_HOME
(`$CODEX_HOME/crosstalk.config.toml`, loaded by `codex --profile crosstalk` on top
of their config and login) with the MCP server, the hooks and a writable sandbox;
the key and URL in `.crosstalk/env` in the folder (private, kept out of git).
Hosted: `config.toml` and `hooks.json` under the runner's CODEX_HOME.

The MCP server reads the key from $CROSSTALK_KEY (bearer_token_env_var), so no
Codex file holds it."""

import json
import os
import shlex
from pathlib import Path

import tomlkit

from agents.attach.common import (
    ENV_FILE,
    HOOK_TIMEOUT,
    SERVER,
    AttachConfig,
    Target,
    as_json,
    drop_hooks,
    env_text,
    hook_command,
    merge_hooks,
)
from agents.attach.files import Edit, env_file_edit, prune

CLI = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
BYPASS_TRUST = "--dangerously-bypass-hook-trust"
PROFILE = "crosstalk"
# Attached Codex may write in the folder it runs in (the default sandbox is read-only).
SANDBOX = "workspace-write"
# Without it `codex exec` refuses the server's tools ("requires approval, but approval
# policy is never"): the start line after `codex mcp add` sets it.
APPROVE = shlex.quote(f'mcp_servers.{SERVER}.default_tools_approval_mode="approve"')
APPROVE = f"-c {APPROVE}"
# Codex 0.171 calls the hosted config's `codex_hooks` deprecated.
HOOKS_FEATURE = "hooks"


def server(target: Target) -> dict:
    return {
        "url": target.mcp_url,
        "bearer_token_env_var": "CROSSTALK_KEY",
        "default_tools_approval_mode": "approve",
    }


def config_toml(target: Target) -> str:
    return "\n".join(
        [
            f"[mcp_servers.{SERVER}]",
            *(f"{name} = {json.dumps(value)}" for name, value in server(target).items()),
            "",
            "[features]",
            "codex_hooks = true",
            "",
        ]
    )


def hook_table() -> dict:
    command = {"type": "command", "command": hook_command(CLI), "timeout": HOOK_TIMEOUT}
    table = {}
    for event in EVENTS:
        group = {"hooks": [command]}
        if event == "PostToolUse":
            group = {"matcher": "*", **group}
        table[event] = [group]
    return table


def hooks_json() -> str:
    return as_json({"hooks": hook_table()})


def codex_home() -> Path:
    """The person's CODEX_HOME (their config and login): $CODEX_HOME, else ~/.codex."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def profile_path() -> Path:
    return codex_home() / f"{PROFILE}.config.toml"


def add_profile(document, target: Target) -> None:
    document["sandbox_mode"] = SANDBOX
    document.setdefault("mcp_servers", tomlkit.table(is_super_table=True))[SERVER] = server(target)
    document.setdefault("features", tomlkit.table())[HOOKS_FEATURE] = True
    hooks = plain(document.get("hooks"))
    merge_hooks(hooks, hook_table())
    document["hooks"] = hooks


def drop_profile(document) -> None:
    if document.get("sandbox_mode") == SANDBOX:
        del document["sandbox_mode"]
    prune(document, "mcp_servers", SERVER)
    prune(document, "features", HOOKS_FEATURE)
    hooks = plain(document.get("hooks"))
    drop_hooks(hooks)
    if hooks:
        document["hooks"] = hooks
    else:
        document.pop("hooks", None)


def plain(item) -> dict:
    value = item.unwrap() if hasattr(item, "unwrap") else item
    return value if isinstance(value, dict) else {}


def start_line() -> str:
    return f"env $(cat {ENV_FILE}) codex --profile {PROFILE} {BYPASS_TRUST}"


def build(target: Target) -> AttachConfig:
    if target.hosted:
        files = {"config.toml": config_toml(target), "hooks.json": hooks_json()}
        return AttachConfig(files=files, env=target.env, argv_extra=[BYPASS_TRUST])
    profile = tomlkit.document()
    add_profile(profile, target)
    url = shlex.quote(target.mcp_url)
    add = f"codex mcp add {SERVER} --url {url} --bearer-token-env-var CROSSTALK_KEY"
    return AttachConfig(
        files={
            f"$CODEX_HOME/{profile_path().name}": tomlkit.dumps(profile),
            ENV_FILE: env_text(target.env),
        },
        env=target.env,
        one_liner=start_line(),
        commands=[add],
        mcp_start=f"CROSSTALK_KEY={shlex.quote(target.key)} codex {APPROVE}",
        notes=[
            f"The profile goes in your CODEX_HOME (~/.codex unless you set it): "
            f"`codex --profile {PROFILE}` loads it on top of your own config and login, "
            f"and a Codex started without it is untouched.",
            f"{ENV_FILE} holds the key: keep it out of git. Start Codex in the folder "
            f"with the line above; {BYPASS_TRUST} lets the hooks run without a trust prompt.",
            "The `codex mcp add` line adds the server to every Codex session instead "
            "(hooks not included); start Codex with CROSSTALK_KEY set and the tools "
            "approved, as the start line after it does (`codex exec` takes the same -c).",
        ],
    )


def edits(target: Target, folder: Path) -> list[Edit]:
    return [
        Edit(profile_path(), "toml", lambda doc: add_profile(doc, target), drop_profile),
        env_file_edit(folder / ENV_FILE, target.env),
    ]
