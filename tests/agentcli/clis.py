"""The real agent CLIs for tests: find (or install) each one, build an isolated
environment that points it at a FakeModel (own HOME, no telemetry, updates or other
outside traffic, retries off), and run it under a timeout.

Where they live: `$CROSSTALK_CLI_DIR` (default `~/.cache/crosstalk/agent-clis`)
`/node_modules/.bin/{claude,codex,gemini}`; a missing or wrongly pinned one is
installed there with npm once per test process. When that cannot be done the
caller gets `CliUnavailable(reason)` and the fixtures skip with that reason.
"""

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

PACKAGES = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
}
INSTALL_TIMEOUT = 900
_install_lock = threading.Lock()
_unavailable: dict[str, str] = {}  # CLI name -> why, so a failed install is tried once


class CliUnavailable(Exception):
    """The CLI is not installed and could not be installed; the message says why."""


def cli_dir() -> Path:
    default = Path.home() / ".cache" / "crosstalk" / "agent-clis"
    return Path(os.environ.get("CROSSTALK_CLI_DIR") or default).expanduser()


def installed_version(name: str) -> str | None:
    package, _ = PACKAGES[name]
    manifest = cli_dir() / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def find_cli(name: str) -> Path:
    """The path of the pinned CLI `name`, installing it first if needed."""
    binary = cli_dir() / "node_modules" / ".bin" / name
    with _install_lock, across_processes():
        if name in _unavailable:
            raise CliUnavailable(_unavailable[name])
        if not (binary.exists() and installed_version(name) == PACKAGES[name][1]):
            reason = _install(name)
            if reason:
                _unavailable[name] = reason
                raise CliUnavailable(reason)
    return binary


@contextlib.contextmanager
def across_processes():
    """One npm at a time in the CLI folder, whichever test worker asks: several npm
    installs into one node_modules at once fail with ENOENT."""
    cli_dir().mkdir(parents=True, exist_ok=True)
    with open(cli_dir() / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _install(name: str) -> str | None:
    """Install the pinned package; None on success, else why it failed."""
    package, version = PACKAGES[name]
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        return f"{name}: node/npm not on PATH, cannot install {package}@{version}"
    argv = [npm, "install", "--prefix", str(cli_dir()), "--save-exact", "--no-audit",
            "--no-fund", "--loglevel=error", f"{package}@{version}"]  # fmt: skip
    cli_dir().mkdir(parents=True, exist_ok=True)
    try:
        done = run_cli(argv, env=dict(os.environ), cwd=cli_dir(), timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{name}: npm install {package}@{version} took over {INSTALL_TIMEOUT}s"
    if done.returncode != 0 or installed_version(name) != version:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return f"{name}: npm install {package}@{version} failed: {' / '.join(tail)}"
    return None


def run_cli(argv, *, env: dict, cwd, timeout: float) -> subprocess.CompletedProcess:
    """Run with stdin closed, in its own process group; on timeout kill the group and
    raise TimeoutExpired (with what was printed). Leftover children are killed too."""
    process = subprocess.Popen(  # noqa: S603 - argv is built by the tests
        [str(a) for a in argv], env=env, cwd=str(cwd), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        stdout, stderr = process.communicate()
        raise subprocess.TimeoutExpired(argv, timeout, output=stdout, stderr=stderr) from None
    _kill_group(process.pid)
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def json_lines(text: str) -> list[dict]:
    """The JSON objects of a JSON-lines output; other lines are skipped."""
    events = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
    return events


FAKE_ANTHROPIC_KEY = "sk-ant-fake-key"
FAKE_OPENAI_KEY = "sk-fake-openai-key"
FAKE_GEMINI_KEY = "fake-gemini-key"
CODEX_KEY_VAR = "CROSSTALK_FAKE_OPENAI_KEY"
# An unknown slug on purpose: Codex then uses fallback metadata and offers MCP tools
# inline. A known one (e.g. "gpt-5.5") hides them behind a client-side `tool_search`.
# The price: every run starts with an `item.completed` of type `error` ("Model
# metadata for `gpt-fake` not found"), which an adapter must treat as a warning.
CODEX_MODEL = "gpt-fake"


def base_env(home: Path) -> dict:
    """A clean environment: the system PATH and a private HOME, nothing inherited."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "USER": os.environ.get("USER", "root"),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": tempfile.gettempdir(),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def claude_env(fake, home: Path) -> dict:
    """Claude Code against `fake`. MCP tools inline (no ToolSearch step); IS_SANDBOX
    lets root use the bypass permission modes."""
    return base_env(home) | {
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": FAKE_ANTHROPIC_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "ENABLE_TOOL_SEARCH": "false",
        "IS_SANDBOX": "1",
    }


def codex_home(fake, folder: Path, *, extra_toml: str = "") -> Path:
    """A CODEX_HOME whose config.toml points Codex at `fake`; `extra_toml` is appended
    (e.g. an `[mcp_servers.crosstalk]` table)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = f"""\
model = "{CODEX_MODEL}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{fake.url}/v1"
wire_api = "responses"
env_key = "{CODEX_KEY_VAR}"
request_max_retries = 1
stream_max_retries = 1

[features]
plugins = false

[analytics]
enabled = false
"""
    (folder / "config.toml").write_text(config + extra_toml)
    return folder


def codex_env(fake, home: Path, *, extra_toml: str = "") -> dict:
    env = base_env(home)
    return env | {
        "CODEX_HOME": str(codex_home(fake, Path(home) / ".codex", extra_toml=extra_toml)),
        CODEX_KEY_VAR: FAKE_OPENAI_KEY,
    }


def gemini_settings(home: Path, extra: dict | None = None) -> Path:
    """`~/.gemini/settings.json`: API-key auth, telemetry, statistics and updates off;
    `extra` is merged at the top level (e.g. {"mcpServers": …, "hooks": …})."""
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    } | (extra or {})
    path = Path(home) / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=1))
    return path


def gemini_env(fake, home: Path, *, settings: dict | None = None) -> dict:
    env = base_env(home)
    gemini_settings(home, settings)
    return env | {
        "GOOGLE_GEMINI_BASE_URL": fake.url,
        "GEMINI_API_KEY": FAKE_GEMINI_KEY,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        # Gemini starts a second Node process of itself with a larger heap before it
        # does anything: twice the start (1.5 s of CPU, not 0.8) for no test's sake.
        "GEMINI_CLI_NO_RELAUNCH": "1",
    }


def install_all() -> int:
    """`python3 -m tests.agentcli.clis`: install the pinned CLIs that are missing (CI).
    Prints one line per CLI; exits 0 even when one cannot be installed (its tests skip)."""
    for name, (package, version) in PACKAGES.items():
        try:
            print(f"{name}: {package}@{version} at {find_cli(name)}")
        except CliUnavailable as why:
            print(f"!! {why} (its tests will skip)")
    return 0


if __name__ == "__main__":
    raise SystemExit(install_all())
