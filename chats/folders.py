"""Working folders belong to one account: a hosted chat's folder lies inside
`<root>/<username>/` of one of AGENT_FOLDERS' roots (the operator's choice, trusted
as given; unset: AGENT_FOLDERS_DEFAULT, var/folders). Outside scripts rely on this
layout (docs/api.md, docs/security.md).

Never `/`, a system folder, a home folder, the server's checkout, its var/ (the default
root aside) or AGENTS_DIR, nor one that holds any of them; never another account's.
The path is judged resolved (symlinks and `..` followed), and the resolved path is what
a chat stores and what a turn runs in: a link swapped in after the check leads nowhere
new. This module is the rule's one home; chats.runners asks it when a chat is made or
changed and when each turn starts."""

import os
import pwd
import unicodedata
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model

# Nothing inside these, ever: the system, its devices, its processes, its settings.
SYSTEM_TREES = (
    "/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
    "/libx32", "/boot", "/run",
)  # fmt: skip
# These themselves (what they hold may be an operator's root: /srv/agents, /var/lib/…).
SYSTEM_FOLDERS = (
    "/var", "/root", "/home", "/srv", "/opt", "/tmp", "/mnt", "/media", "/snap",  # noqa: S108
    "/var/lib", "/var/tmp", "/var/log", "/var/cache", "/var/spool", "/var/mail",  # noqa: S108
    "/var/www", "/var/opt", "/usr/local",
)  # fmt: skip
# The most a folder name may take on Linux filesystems (NAME_MAX, in bytes).
NAME_MAX = 255


class FolderRefused(Exception):
    """A folder this account may not use; `sentence` says which rule and where to go."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def roots() -> list[Path]:
    """Where working folders may be, read when asked (never at import), resolved."""
    configured = settings.AGENT_FOLDERS or [settings.AGENT_FOLDERS_DEFAULT]
    return [real(root) for root in configured]


def inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def why_name_unsafe(user) -> str | None:
    """Why this account's username cannot be one folder of its own, or None."""
    name = user.get_username()
    if name in {"", ".", ".."} or "/" in name or "\x00" in name:
        return "is not a folder name"
    if name.startswith(("-", ".")):
        return "starts with `-` or `.`"
    if unicodedata.normalize("NFKC", name) != name or len(name.encode()) > NAME_MAX:
        return "is not in Unicode's normal form or is too long"
    others = get_user_model().objects.exclude(pk=user.pk)
    if others.filter(username__iexact=name).exists():
        return "differs only in case from another account's, whose folder it could reach"
    return None


def own_folders(user) -> list[Path]:
    """`<root>/<username>/` in each root; raises FolderRefused for a username that
    cannot name a folder safely (the account gets no working folder at all)."""
    if (problem := why_name_unsafe(user)) is not None:
        raise FolderRefused(
            f"your username {user.get_username()!r} {problem}, so your account has no "
            "working folders on this server; an admin can rename the account."
        )
    return [root / user.get_username() for root in roots()]


def where_they_go(folders: list[Path]) -> str:
    places = " or ".join(f"{folder}/" for folder in folders)
    return f"your working folders go inside {places}."


def resolve(user, folder: str) -> Path:
    """The working folder `folder` names for this account, resolved: an absolute path,
    or one relative to the account's folder in the first root. Raises FolderRefused."""
    own = own_folders(user)
    given = Path(folder) if os.path.isabs(folder) else own[0] / folder
    found = real(given)
    problem = why_system(found) or why_server(found) or why_not_own(found, own)
    if problem is not None:
        linked = Path(os.path.normpath(given)) != found  # a symlink on the way
        said = f"{given} leads to {found}, which" if linked else str(given)
        raise FolderRefused(f"{said} {problem}; {where_they_go(own)}")
    return found


def why_system(path: Path) -> str | None:
    if path == Path("/"):
        return "is the root folder"
    trees = {Path(top) for top in SYSTEM_TREES} | {real(top) for top in SYSTEM_TREES}
    if path in map(Path, SYSTEM_FOLDERS) or any(inside(path, tree) for tree in trees):
        return "is a system folder"
    homes = home_folders()
    if path in homes:
        return "is a home folder"
    if any(home.is_relative_to(path) for home in homes):
        return "holds a home folder"
    return None


def home_folders() -> set[Path]:
    """Every account's home on this machine (/etc/passwd), and the server's own."""
    homes = {Path.home(), real(Path.home())}
    for entry in pwd.getpwall():
        if entry.pw_dir.startswith("/"):
            homes |= {Path(entry.pw_dir), real(entry.pw_dir)}
    return homes


def why_server(path: Path) -> str | None:
    """The server's own: its checkout, its var/ (the default root aside), AGENTS_DIR;
    said of the closest: `var/` itself is var/, not a folder that holds AGENTS_DIR."""
    default_root = real(settings.AGENT_FOLDERS_DEFAULT)
    own = [
        (real(settings.BASE_DIR), "the server's checkout", False),
        (real(settings.VAR_DIR), "the server's var/", not inside(path, default_root)),
        (real(settings.AGENTS_DIR), "AGENTS_DIR (every hosted chat's settings and keys)", True),
    ]
    for folder, what, _below in own:
        if path == folder:
            return f"is {what}"
    for folder, what, _below in own:
        if folder.is_relative_to(path):
            return f"holds {what}"
    for folder, what, below in reversed(own):
        if below and path.is_relative_to(folder):
            return f"is inside {what}"
    return None


def why_not_own(path: Path, own: list[Path]) -> str | None:
    if any(inside(path, folder) for folder in own):
        return None
    for root in roots():
        if path == root:
            return "holds every account's folders"
        if path.is_relative_to(root):
            return "is in another account's folders"
    return "is outside your folders"


def why_missing(folder: str) -> str | None:
    """Why this cannot be a chat's working folder on this machine, or None."""
    if not folder:
        return "the chat has no working folder (set `folder`)"
    if not Path(folder).is_dir():
        return f"the working folder {folder} does not exist on this machine"
    return None


def make(user, folder: Path) -> None:
    """Make a resolved working folder that is missing, and the account's own folder above
    it (0700), when the chat is made. Raises FolderRefused if it cannot be made, or if
    a link swapped in meanwhile took it elsewhere."""
    own = next(mine for mine in own_folders(user) if inside(folder, mine))
    try:
        own.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the root
        own.mkdir(mode=0o700, exist_ok=True)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise FolderRefused(f"{folder} could not be made ({error.strerror}).") from None
    if real(folder) != folder:
        raise FolderRefused(f"{folder} changed while it was made; try again.")
