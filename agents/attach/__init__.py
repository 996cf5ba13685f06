"""The files, environment and flags that attach one CLI session to one chat.

The same config serves a session the person runs in their own terminal
(`agent_config`, the attach panel) and a headless turn the runner starts
(`hosted=True`): the `crosstalk` MCP server with the chat's key, and the hooks
that bring peer messages in between steps and as the agent finishes."""

from pathlib import Path

from agents.attach import claude_code, codex, gemini
from agents.attach.common import AttachConfig, Target, write_files
from agents.attach.files import ConfigFileError, Edit, apply, check
from chats.models import Chat

__all__ = [
    "CLIS",
    "AttachConfig",
    "ConfigFileError",
    "apply",
    "attach_config",
    "check",
    "config_edits",
    "write_files",
]

BUILDERS = {
    Chat.Agent.CLAUDE_CODE: claude_code.build,
    Chat.Agent.CODEX: codex.build,
    Chat.Agent.GEMINI: gemini.build,
}
CLIS = tuple(BUILDERS)
EDITS = {
    Chat.Agent.CLAUDE_CODE: claude_code.edits,
    Chat.Agent.CODEX: codex.edits,
    Chat.Agent.GEMINI: gemini.edits,
}


def attach_config(
    chat: Chat,
    agent: str,
    *,
    key: str,
    base_url: str,
    hosted: bool = False,
    config_dir: str | Path | None = None,
) -> AttachConfig:
    """`agent` is one of CLIS; `key` the chat's agent key; `base_url` where
    Crosstalk answers (e.g. http://127.0.0.1:8000).

    hosted=True: a headless turn of the runner. Files are named for a folder of
    the runner's (never the person's repository), `argv_extra` carries the flags
    that load them, and a chat whose switch is off gets nothing at all. Paths
    to generated files in `argv_extra` are relative to that folder unless
    `config_dir` names it."""
    build = BUILDERS.get(agent)
    if build is None:
        raise ValueError(f"agent must be one of {', '.join(CLIS)}, not {agent!r}")
    target = Target(
        chat=chat,
        key=key,
        base_url=base_url.rstrip("/"),
        hosted=hosted,
        config_dir=Path(config_dir) if config_dir is not None else None,
    )
    if hosted and not chat.peers:
        return AttachConfig(notes=["Agent-to-agent messaging is off: no tools, no hooks."])
    return build(target)


def config_edits(chat: Chat, agent: str, *, key: str, base_url: str, folder: Path) -> list[Edit]:
    """What `agent_config --write FOLDER` changes (and `--remove` takes out again):
    Crosstalk's entries in the files the CLI reads for a session started in FOLDER."""
    if agent not in EDITS:
        raise ValueError(f"agent must be one of {', '.join(CLIS)}, not {agent!r}")
    target = Target(chat=chat, key=key, base_url=base_url.rstrip("/"), hosted=False,
                    config_dir=None)  # fmt: skip
    return EDITS[agent](target, Path(folder).absolute())
