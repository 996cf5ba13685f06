"""Codex, headless: `codex exec --json --skip-git-repo-check -- -`, later
`codex exec resume --json -- THREAD -` (`-`: the prompt is on stdin), with
CODEX_HOME per chat (where its sessions live, so a resume finds them).

Its stream: `thread.started{thread_id}`, `item.started/completed` of
`command_execution`, `mcp_tool_call`, `file_change`, `agent_message{text}`,
`error` events on the way (a reconnect to the model, after which it may well
succeed: notes, not failures), then `turn.completed` or `turn.failed`. Whether
the turn failed is decided by that last event and the exit status."""

import json
import os
import re
import tomllib
from pathlib import Path

from django.conf import settings

from agents.adapters.cli import CliAdapter, HostedRun
from agents.adapters.events import (
    Event,
    Failure,
    Said,
    Session,
    ToolCall,
    ToolDone,
    Trouble,
    json_line,
    shorten,
)
from agents.adapters.judge import host_of
from agents.adapters.setup import HostedSetup
from agents.attach import AttachConfig
from agents.attach import codex as attach_codex
from agents.hooks.clis import CLIS as HOOK_CLIS
from agents.logins import TurnLogins
from agents.process import ProcessOutcome
from agents.safe_files import Folder
from chats.models import Chat

# What it prints while it cannot reach the model (and retries, forever when offline).
RECONNECTING = "Reconnecting..."
# Its attempt counter ("Reconnecting... 2/5 (…)").
ATTEMPT = re.compile(r"^Reconnecting\.\.\. \d+/\d+ ")
# An error's note is bounded (the reason adds stderr's lines to it).
NOTE_CHARS = 500
# On stderr when an MCP server could not be reached (its URL follows).
MCP_FAILED = "worker quit with fatal"


class CodexAgent(CliAdapter):
    kind = Chat.Agent.CODEX
    # Its answer to `exec resume` of a thread its CODEX_HOME does not hold (early on stderr).
    session_gone = "no rollout found for thread id"
    model_url_variable = "OPENAI_BASE_URL"
    default_model_host = "api.openai.com"
    providers = ("OPENAI_*", "CODEX_*", "AZURE_OPENAI_*")
    # Its own CODEX_HOME per chat: its sessions live there, so `exec resume` finds them.
    config_subfolder = "codex-home"
    attach = attach_codex
    hooks = HOOK_CLIS["codex"]

    def argv(self, run: HostedRun) -> list[str]:
        chat = run.chat
        sandbox = self.permission_mode(chat)
        # Headless: never ask for an approval nobody can give; the sandbox is the limit.
        options = ["--json", "--skip-git-repo-check", "-c", 'approval_policy="never"']
        options += ["-c", f'sandbox_mode="{sandbox}"', *run.setup.argv_extra]
        if chat.model:
            options += [f"--model={chat.model}"]
        # After "--", no id can be an option; "-": the prompt is read from stdin.
        if chat.session_id:
            return [run.binary, "exec", "resume", *options, "--", chat.session_id, "-"]
        return [run.binary, "exec", *options, "--", "-"]

    def prepare_home(self, folder: Folder, config: AttachConfig, setup: HostedSetup) -> None:
        setup.env["CODEX_HOME"] = str(folder.path)
        seed_codex_home(folder, setup.logins)
        # Crosstalk's settings go on the command line, above the operator's config.toml.
        setup.argv_extra += codex_overrides(config.files.pop("config.toml", ""))
        if setup.logins.api_key:
            setup.argv_extra += codex_overrides(own_provider(setup.logins))

    def parse(self, line: str) -> list[Event]:
        return parse_codex_line(line)

    def model_host(self, run: HostedRun, env: dict[str, str]) -> str:
        """Its provider's base_url (the account's own, or the chat's CODEX_HOME/config.toml),
        else OPENAI_BASE_URL."""
        if run.setup.logins.api_key:
            return host_of(run.setup.logins.base_url or OPENAI_URL, self.default_model_host)
        try:
            config = tomllib.loads((run.setup.folder / "config.toml").read_text())
        except (OSError, ValueError):
            config = {}
        provider = (config.get("model_providers") or {}).get(config.get("model_provider"))
        url = provider.get("base_url", "") if isinstance(provider, dict) else ""
        return host_of(url or env.get(self.model_url_variable, ""), self.default_model_host)

    def missing_tools(self, outcome: ProcessOutcome) -> str:
        said = f"{outcome.stderr_head}\n{outcome.stderr_tail}".splitlines()
        ours = settings.CROSSTALK_URL.rstrip("/")
        for line in said:
            if MCP_FAILED in line and ours in line:
                return f"the crosstalk MCP server at {ours} could not be reached"
        return ""


# What the operator's own Codex home lends each chat's, when its logins are lent: its
# provider settings and its login (the config may name a provider's key, or hold one).
CODEX_SHARED = ("config.toml", "auth.json")
# The model provider an account's own API key is used with (OPENAI_API_KEY, its base URL).
OWN_PROVIDER = "crosstalk-account"
OPENAI_URL = "https://api.openai.com/v1"


def operator_codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def seed_codex_home(home: Folder, logins: TurnLogins) -> None:
    """Lent: the operator's config.toml and login, copied when newer. Not lent: none of
    the operator's (any left from an earlier lend go), the account's own login file."""
    if logins.lent:
        for name in CODEX_SHARED:
            home.copy_in(name, operator_codex_home() / name)
        return
    for name in CODEX_SHARED:
        if not (name == "auth.json" and logins.login_file):
            home.remove(name)
    if logins.login_file:
        home.write("auth.json", logins.login_file, newer_than=logins.set_at)


def own_provider(logins: TurnLogins) -> str:
    """The account's key with its base URL, as a Codex provider (Codex ignores
    OPENAI_BASE_URL): its settings, as TOML for codex_overrides."""
    url = json.dumps(logins.base_url or OPENAI_URL)
    return (
        f'model_provider = "{OWN_PROVIDER}"\n[model_providers.{OWN_PROVIDER}]\n'
        f'name = "{OWN_PROVIDER}"\nbase_url = {url}\nwire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )


def codex_overrides(toml: str) -> list[str]:
    """A config.toml as `-c dotted.key=value` flags (TOML values; JSON writes them alike)."""
    flags = []
    for dotted, value in flatten(tomllib.loads(toml)):
        flags += ["-c", f"{dotted}={json.dumps(value)}"]
    return flags


def flatten(table: dict, prefix: str = ""):
    for name, value in table.items():
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def parse_codex_line(line: str) -> list[Event]:
    data = json_line(line)
    if data is None:
        return []
    kind = data.get("type")
    if kind == "thread.started" and data.get("thread_id"):
        return [Session(data["thread_id"])]
    if kind == "item.started":
        return started_item(data.get("item") or {})
    if kind == "item.completed":
        return completed_item(data.get("item") or {})
    if kind == "turn.failed":
        return [Failure(f"codex reported an error: {error_text(data.get('error'))}")]
    if kind == "error":
        message = shorten(error_text(data), NOTE_CHARS)
        if message.startswith(RECONNECTING):
            # Without its attempt counter: each attempt is the same note, counted.
            message = ATTEMPT.sub(RECONNECTING + " ", message, count=1)
            return [Trouble(f"codex: {message}", retrying=True)]
        return [Trouble(f"codex reported an error: {message}")]
    return []


# Items that start and later complete: a step the model waits for.
STEPS = {"command_execution", "mcp_tool_call", "web_search"}


def started_item(item: dict) -> list[Event]:
    """Steps show when they start, so a long command is visible while it runs."""
    kind = item.get("type")
    if kind == "command_execution":
        return [ToolCall("shell", {"command": item.get("command", "")})]
    if kind == "mcp_tool_call":
        name = f"mcp__{item.get('server', '?')}__{item.get('tool', '?')}"
        return [ToolCall(name, item.get("arguments") or {})]
    if kind == "web_search":
        return [ToolCall("web_search", {"query": item.get("query", "")})]
    return []


def completed_item(item: dict) -> list[Event]:
    kind = item.get("type")
    if kind == "agent_message" and item.get("text", "").strip():
        return [Said(item["text"])]
    if kind in STEPS:
        return [ToolDone()]
    if kind == "file_change":
        paths = [change.get("path", "?") for change in item.get("changes") or []]
        edit = {"path": ", ".join(paths), "changes": item.get("changes")}
        return [ToolCall("edit", edit), ToolDone()]
    # `error` items are warnings (a model's metadata missing): the turn goes on.
    return []


def error_text(error) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or "unknown error")
