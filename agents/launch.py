"""A hosted agent's process is built here and nowhere else: its argv (the adapter's,
where no value can be an option), an allow-listed environment, its input on stdin,
and with AGENT_SANDBOX=bwrap the jail it runs in (agents.sandbox, agents.network).

The environment is the allow-list below taken from the server's own, the adapter's
provider variables, what AGENT_ENV_PASS names — of these, the operator's credentials
only where they are lent to the account (agents.logins) — then what Crosstalk sets
itself (the server URL, the chat's key, the account's own model key, the CLI's
settings). Nothing else of the server's
(SECRET_KEY, DATABASE_URL, REDIS_URL, …) ever reaches an agent."""

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from agents import jail_probe, network, sandbox
from agents.logins import is_credential
from agents.process import ProcessSpec
from kernel.env import NEVER_PASSED

# What any program needs: where programs are, its home, locale and terminal, temp files,
# the way out to the network (proxies, certificates).
BASE_PASSED = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM",
    "NO_COLOR", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
    "XDG_STATE_HOME", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
    "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
)  # fmt: skip
# Inside the jail these name folders it cannot see: its own home replaces them.
HOME_BOUND = (
    "HOME",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
)


@dataclass(slots=True)
class Launch:
    """What an adapter asks for; `build` makes the process of it."""

    argv: list[str]
    cwd: str
    # The adapter's provider variables (names or PREFIX_*), passed from the server's.
    providers: tuple[str, ...] = ()
    # What Crosstalk sets: the server URL, the chat's key, the CLI's settings.
    own: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None
    # The chat's folder under AGENTS_DIR (its settings and, in the jail, its home).
    private: Path | None = None
    # The operator's model logins are not lent to this turn: no credential variable of
    # the server's (agents.logins.is_credential) and none naming its home reach it.
    withheld: bool = False


def passes(name: str, patterns: Iterable[str]) -> bool:
    for pattern in patterns:
        if pattern.endswith("*") and name.startswith(pattern[:-1]):
            return True
        if name == pattern:
            return True
    return False


def agent_env(launch: Launch, source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of the server's environment, then what Crosstalk sets."""
    source = os.environ if source is None else source
    patterns = (*BASE_PASSED, *launch.providers, *settings.AGENT_ENV_PASS)
    env = {
        name: value
        for name, value in source.items()
        if name not in NEVER_PASSED and passes(name, patterns) and not withheld(launch, name)
    }
    return {**env, **launch.own}


def withheld(launch: Launch, name: str) -> bool:
    return launch.withheld and (is_credential(name) or name in HOME_BOUND)


def why_not_launchable() -> str | None:
    """Why no hosted agent can start here now (the sandbox asked for is missing or does
    not hold: checked once a process by running it, agents.jail_probe), or None."""
    if settings.AGENT_SANDBOX != "bwrap":
        return None
    if sandbox.bwrap() is None:
        return (
            "AGENT_SANDBOX=bwrap but bubblewrap (`bwrap`) is not installed on this machine "
            "(apt install bubblewrap), so no hosted agent may run"
        )
    if network.pasta() is None:
        return (
            "AGENT_SANDBOX=bwrap but pasta, which gives the jail a network of its own, is not "
            "installed on this machine (apt install passt), so no hosted agent may run"
        )
    if (problem := jail_probe.why_not_jailed()) is not None:
        return f"AGENT_SANDBOX=bwrap but {problem}, so no hosted agent may run"
    return None


def build(launch: Launch) -> ProcessSpec:
    env = agent_env(launch)
    if settings.AGENT_SANDBOX != "bwrap":
        return ProcessSpec(launch.argv, cwd=launch.cwd, env=env, stdin=launch.stdin)
    private = launch.private or Path(launch.cwd)
    home = sandbox.home_of(private)  # made by agents.adapters.setup
    env = {name: value for name, value in env.items() if name not in HOME_BOUND}
    env |= {"HOME": str(home), "TMPDIR": sandbox.JAIL_TMP}
    # Crosstalk's own settings may name a home of its own (CODEX_HOME): they win.
    env |= {name: value for name, value in launch.own.items() if name in HOME_BOUND}
    argv = network.jailed(launch.argv, cwd=launch.cwd, writable=[private], path=env.get("PATH"))
    return ProcessSpec(argv, cwd=launch.cwd, env=env, stdin=launch.stdin)
