"""AGENT_SANDBOX=bwrap: a hosted agent under bubblewrap.

What it sees: the system read-only (/usr, the /bin and /lib links, the few files of
/etc a program needs to run and reach the network), the CLI's own install and the
folders on its PATH read-only, its working folder and its chat's private folder under
AGENTS_DIR read-write (its home is in there), a fresh /proc and /dev, /tmp empty.
Not the server's var/ (its database, its secret key), not the server's home, not the
server's processes (a PID namespace of its own). The network stays: the agent reaches
its model and this server on loopback.

Its environment is the process's own (already allow-listed by agents.launch): bwrap
passes it on, so no value (the chat's key, a provider's) ever shows on a command line."""

import os
import shutil
import sys
from pathlib import Path

from django.conf import settings

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
# The operator's CLI settings and logins, copied into each jailed agent's own home.
CLI_CONFIG = (
    ".claude.json", ".claude/.credentials.json", ".claude/settings.json",
    ".gemini/settings.json", ".gemini/oauth_creds.json", ".gemini/google_accounts.json",
    ".gemini/installation_id",
)  # fmt: skip


def bwrap() -> str | None:
    return shutil.which("bwrap")


def private_home(private: Path) -> Path:
    """The jailed agent's home, in its chat's folder, seeded with the operator's CLI
    settings and logins (copied when newer: the agent never writes the originals)."""
    home = private / HOME
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    own = Path.home()
    for relative in CLI_CONFIG:
        source, target = own / relative, home / relative
        if not source.is_file():
            continue
        if not target.exists() or source.stat().st_mtime > target.stat().st_mtime:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            shutil.copyfile(source, target)
            target.chmod(0o600)
    return home


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


def jailed(argv: list[str], *, cwd: str, writable: list[Path], path: str | None) -> list[str]:
    cwd = str(Path(cwd).absolute())
    jail = ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--tmpfs", "/"]
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
