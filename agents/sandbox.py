"""AGENT_SANDBOX=bwrap: a hosted agent under bubblewrap.

What it sees: the system read-only (/usr, the /bin and /lib links, the few files of
/etc a program needs to run and reach the network), the CLI's own install and the
folders on its PATH read-only, its working folder and its chat's private folder under
AGENTS_DIR read-write (its home is in there), a fresh /proc and /dev, /tmp empty.
Not the server's var/ (its database, its secret key), not the server's home, not the
server's processes (a PID namespace of its own), no capability (a user namespace of its
own, --cap-drop ALL, also when the server runs as root). Its network is its own
(agents.network): outside addresses, and of loopback only this server and AGENT_NET_ALLOW.

Its environment is the process's own (already allow-listed by agents.launch): bwrap
passes it on, so no value (the chat's key, a provider's) ever shows on a command line."""

import os
import shutil
import sys
from pathlib import Path

from django.conf import settings

from agents.logins import TurnLogins
from agents.safe_files import Folder

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc a program needs: names, users, libraries, certificates, time zone, DNS.
ETC = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "gai.conf", "group",
    "host.conf", "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
    "mime.types", "nsswitch.conf", "passwd", "pki", "resolv.conf", "ssl", "timezone",
)  # fmt: skip
HOME = "home"
# The jail's own /tmp: an empty tmpfs, nobody else's.
JAIL_TMP = "/tmp"  # noqa: S108
# The operator's CLI settings, and its logins: copied into a jailed agent's own home
# only when the operator's logins are lent to its account (agents.logins).
CLI_SETTINGS = (".claude/settings.json", ".gemini/settings.json", ".gemini/installation_id")
CLI_LOGINS = (
    ".claude.json", ".claude/.credentials.json", ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
)  # fmt: skip
CLI_CONFIG = CLI_SETTINGS + CLI_LOGINS
# Left in a home the operator's logins were copied into: the CLI keeps writing its own
# ~/.claude.json, so only a home that had the operator's has them taken out.
LENT_MARK = ".crosstalk-lent"


def bwrap() -> str | None:
    return shutil.which("bwrap")


def home_of(private: Path) -> Path:
    return private / HOME


def private_home(private: Folder, logins: TurnLogins) -> Path:
    """The agent's own home in its chat's folder (written without following a link the
    agent planted). Lent: the operator's CLI settings and logins, copied when newer (the
    agent never writes the originals). Not lent: nothing of the operator's — the logins
    an earlier lend left are taken out — and the account's own login file."""
    with private.sub(HOME) as home:
        own = logins.provider.login_file if logins.login_file and logins.provider.in_home else ""
        if logins.lent:
            for relative in CLI_CONFIG:
                home.copy_in(relative, Path.home() / relative)
            home.write(LENT_MARK, "")
        elif home.own_file(LENT_MARK) is not None:
            for relative in (name for name in CLI_LOGINS if name != own):
                home.remove(relative)
            home.remove(LENT_MARK)
        if own:
            home.write(own, logins.login_file, newer_than=logins.set_at)
        return home.path


def install_folder(program: str) -> Path:
    """Where a CLI is installed: the outermost node_modules it lives in, else its folder."""
    real = Path(program).resolve()
    modules = [folder for folder in real.parents if folder.name == "node_modules"]
    return modules[-1] if modules else real.parent


def hidden(folder: Path) -> bool:
    """A folder the agent must not see: the server's var/, one holding it, or one
    holding the server's home (a PATH of "/", "." or "~" lends nothing)."""
    if not folder.is_absolute():
        return True
    var, home, folder = Path(settings.VAR_DIR).resolve(), Path.home().resolve(), folder.resolve()
    return folder.is_relative_to(var) or folder in var.parents or folder in {home, *home.parents}


def readable(argv: list[str], path: str | None) -> list[Path]:
    """Read-only: the CLI's install, the folders on its PATH, the hook's interpreter
    and script, outside the system folders."""
    program = shutil.which(argv[0], path=path) or argv[0]
    folders = [install_folder(program), Path(sys.executable).parent, Path(sys.base_prefix)]
    folders += [Path(entry) for entry in (path or "").split(os.pathsep) if entry]
    hook = Path(settings.BASE_DIR) / "bin" / "crosstalk-hook"
    found = []
    for folder in folders:
        if folder.is_dir() and not hidden(folder) and not system(folder) and folder not in found:
            found.append(folder)
    return [*found, hook] if hook.is_file() else found


def system(folder: Path) -> bool:
    return any(folder == Path(top) or Path(top) in folder.parents for top in SYSTEM)


# Its own user (no capability on the host's, even when the server runs as root), network
# (agents.network gives it pasta's), processes, IPC, host name and cgroup view.
NAMESPACES = (
    "--unshare-user", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
    "--unshare-cgroup-try",
)  # fmt: skip


def jailed(argv: list[str], *, cwd: str, writable: list[Path], path: str | None) -> list[str]:
    cwd = str(Path(cwd).absolute())
    jail = [*NAMESPACES, "--cap-drop", "ALL", "--new-session", "--die-with-parent"]
    jail += ["--tmpfs", "/"]
    for folder in SYSTEM:
        jail += ["--ro-bind-try", folder, folder]
    for name in ETC:
        jail += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # The jail's own /tmp first: what is mounted below comes on top of it (a checkout,
    # its virtualenv and hook script may live under /tmp).
    jail += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", JAIL_TMP]
    for source in readable(argv, path):
        jail += ["--ro-bind", str(source), str(source)]
    for folder in [Path(cwd), *writable]:
        jail += ["--bind", str(folder), str(folder)]
    var = Path(settings.VAR_DIR).resolve()
    if any(var.is_relative_to(folder.resolve()) for folder in [Path(cwd), *writable]):
        # A working folder that holds the server's var/ (its own checkout) gets it empty.
        jail += ["--tmpfs", str(var)]
        for folder in writable:
            if folder.resolve().is_relative_to(var):
                jail += ["--bind", str(folder), str(folder)]
    return [bwrap() or "bwrap", *jail, "--chdir", cwd, "--", *argv]
