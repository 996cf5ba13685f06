"""What every CLI's attach config shares: the URLs, the hook command, the result type."""

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from agents.safe_files import Folder
from chats.models import Chat

SERVER = "crosstalk"
HOOK_NAME = "crosstalk-hook"
HOOKS_PATH = "/api/v1/agent/hooks/"
# Codex and Gemini: the key and URL, in the folder, for the start line to read.
ENV_FILE = ".crosstalk/env"
TOOLS = ("ListChats", "ReadChat", "MessageChat", "ReadInbox")
# How long a CLI waits for a hook before it gives up on it (seconds).
HOOK_TIMEOUT = 30


@dataclass(slots=True)
class AttachConfig:
    # Relative path → content. Attached: relative to the folder the session runs
    # in. Hosted: relative to the runner's config folder (CODEX_HOME for Codex).
    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    # Flags a headless turn adds to the CLI's command line.
    argv_extra: list[str] = field(default_factory=list)
    # The one line a person types to start an attached session.
    one_liner: str = ""
    # The CLI's own commands that add the same MCP server (`claude mcp add …`)…
    commands: list[str] = field(default_factory=list)
    # …and the line that starts a session with only that (no hooks, no files): a full
    # member all the same (its tool results carry its messages).
    mcp_start: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def env_line(self) -> str:
        return " ".join(f"{name}={shlex.quote(value)}" for name, value in self.env.items())


@dataclass(frozen=True, slots=True)
class Target:
    chat: Chat
    key: str
    base_url: str
    hosted: bool
    config_dir: Path | None

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    def hook_url(self, cli: str) -> str:
        return f"{self.base_url}/api/v1/agent/hooks/{cli}"

    def path(self, relative: str) -> str:
        """A generated file as a flag names it."""
        return str(self.config_dir / relative) if self.config_dir else relative

    @property
    def env(self) -> dict[str, str]:
        return {"CROSSTALK_URL": self.base_url, "CROSSTALK_KEY": self.key}


def hook_script() -> Path:
    return Path(settings.BASE_DIR) / "bin" / HOOK_NAME


def hook_command(cli: str) -> str:
    """The shell line a CLI runs for a hook; CROSSTALK_URL/KEY come from its environment.

    Run by this very interpreter with -I -S (no site, standard library only): the
    `python3` a shebang finds may be a version manager's shim, ten times slower to start."""
    python, script = shlex.quote(sys.executable), shlex.quote(str(hook_script()))
    return f"{python} -I -S {script} {cli}"


def env_text(values: dict[str, str]) -> str:
    return "".join(f"{name}={value}\n" for name, value in values.items())


def as_json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def is_crosstalk_hook(hook) -> bool:
    """A hook Crosstalk wrote: it runs the hook command, or posts to the hooks API."""
    if not isinstance(hook, dict):
        return False
    command, url = hook.get("command"), hook.get("url")
    return (isinstance(command, str) and HOOK_NAME in command) or (
        isinstance(url, str) and HOOKS_PATH in url
    )


def merge_hooks(table: dict, ours: dict) -> None:
    """Put Crosstalk's hook groups into a CLI's hooks table, after the person's own."""
    drop_hooks(table)
    for event, groups in ours.items():
        existing = table.get(event)
        table[event] = [*(existing if isinstance(existing, list) else []), *groups]


def drop_hooks(table: dict) -> None:
    """Take Crosstalk's hooks out of a hooks table; groups and events left empty go too."""
    for event in list(table):
        groups = table[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            hooks = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(hooks, list):
                mine = [hook for hook in hooks if not is_crosstalk_hook(hook)]
                if not mine:
                    continue
                group = {**group, "hooks": mine}
            kept.append(group)
        if kept:
            table[event] = kept
        else:
            del table[event]


def write_files(config: AttachConfig, folder: Folder) -> list[Path]:
    """Write the config's files in the runner's `folder`; readable by their owner only
    (some hold the key), never through a link planted there (agents.safe_files)."""
    return [folder.write(relative, content) for relative, content in config.files.items()]
