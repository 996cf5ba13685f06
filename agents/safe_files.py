"""Every file the runner writes into an agent's folders (AGENTS_DIR/<chat>/…: its
settings, its jailed home, its CODEX_HOME) goes through here.

A hosted agent may write its own folder, so it may plant a link there where the
server will write next turn (`home/.claude.json` → a file of the server's). The
server never follows a link it did not make: it walks down from AGENTS_DIR, a
folder it opened itself, one component at a time with O_NOFOLLOW|O_DIRECTORY; it
creates a file under a fresh temporary name (O_CREAT|O_EXCL|O_NOFOLLOW, at the
folder's fd), sets its mode on the fd, and renames it over the name in the same
folder, which replaces a link rather than writing through it. A link (or anything
but our own file or folder) found where ours belongs is removed — never its
target — and reported in `Folder.planted`, so the turn can say so."""

import contextlib
import errno
import os
import secrets
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700
OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
CREATE_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFolder(Exception):
    """A folder the server cannot take as its own (another user's); the message says which."""


@dataclass(slots=True)
class Planted:
    """Something the server found where its own file or folder belongs, and removed."""

    path: Path
    what: str  # "a link to /x", "a folder", "a file of another user"

    def notice(self) -> str:
        return (
            f"{self.path} was {self.what}, where Crosstalk keeps a file or folder of its own "
            "for this chat: Crosstalk did not follow it, and removed it."
        )


@dataclass(slots=True)
class Folder:
    """A folder the server opened itself (an fd), and where it is, for messages."""

    fd: int
    path: Path
    planted: list[Planted] = field(default_factory=list)

    @classmethod
    def open_root(cls, path: Path) -> "Folder":
        """AGENTS_DIR itself: the operator's setting (its own links followed), made if
        missing, then opened; what is below it is walked without following a link."""
        real = Path(os.path.realpath(path))
        real.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
        return cls(own_folder(os.open(real, OPEN_FOLDER), path), path)

    def __enter__(self) -> "Folder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def sub(self, relative: str) -> "Folder":
        """The folder at `relative` (made 0700 where missing), each step opened without
        following a link; shares this one's `planted`. Close it (or use `with`)."""
        folder = Folder(os.dup(self.fd), self.path, self.planted)
        for name in parts(relative):
            try:
                child = self.child_folder(folder.fd, folder.path / name, name)
            finally:
                folder.close()
            folder = Folder(child, folder.path / name, self.planted)
        return folder

    def child_folder(self, parent: int, path: Path, name: str) -> int:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, FOLDER_MODE, dir_fd=parent)
        try:
            fd = os.open(name, OPEN_FOLDER, dir_fd=parent)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            self.clear(parent, path, name)
            os.mkdir(name, FOLDER_MODE, dir_fd=parent)
            fd = os.open(name, OPEN_FOLDER, dir_fd=parent)
        return own_folder(fd, path)

    def write(
        self, relative: str, content: str | bytes, *, newer_than: float | None = None
    ) -> Path:
        """Write the file at `relative` (mode 0600), replacing whatever is there; with
        `newer_than` (a time), only when what is there is older, or not a file of ours."""
        *above, name = parts(relative)
        with self.sub("/".join(above)) as folder:
            found = folder.own_file(name)
            if found is not None and newer_than is not None and found.st_mtime >= newer_than:
                return folder.path / name
            folder.replace(name, content.encode() if isinstance(content, str) else content)
            return folder.path / name

    def copy_in(self, relative: str, source: Path) -> None:
        """The operator's file `source` (if it is one), copied to `relative` when newer
        than the copy there: the agent gets its own copy, never the original."""
        try:
            info, content = source.stat(), source.read_bytes()
        except OSError:
            return
        if stat.S_ISREG(info.st_mode):
            self.write(relative, content, newer_than=info.st_mtime)

    def remove(self, relative: str) -> None:
        """Take out the file at `relative` if there is one (anything planted there is
        removed and noted: a link itself, never its target)."""
        *above, name = parts(relative)
        with self.sub("/".join(above)) as folder:
            if folder.own_file(name) is not None:
                os.unlink(name, dir_fd=folder.fd)

    def own_file(self, name: str) -> os.stat_result | None:
        """What is at `name` if it is a regular file of ours; anything else is cleared."""
        try:
            info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
            return info
        self.clear(self.fd, self.path / name, name)
        return None

    def replace(self, name: str, content: bytes) -> None:
        temporary = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temporary, CREATE_FILE, FILE_MODE, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as out:
                os.fchmod(out.fileno(), FILE_MODE)
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            # A rename replaces a link at `name`; it never writes through one.
            os.rename(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.fd)
            raise

    def clear(self, parent: int, path: Path, name: str) -> None:
        """Remove what was planted at `name` (a link itself, never its target) and note it."""
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            what = f"a link to {os.readlink(name, dir_fd=parent)}"
        elif info.st_uid != os.geteuid():
            what = "a file of another user"
        else:
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(name, dir_fd=parent)
        else:
            os.unlink(name, dir_fd=parent)
        self.planted.append(Planted(path, what))


def own_folder(fd: int, path: Path) -> int:
    """The fd of a folder that is ours, made 0700 (on the fd, never by its path)."""
    info = os.fstat(fd)
    if info.st_uid != os.geteuid():
        os.close(fd)
        raise UnsafeFolder(f"the settings folder {path} belongs to another user")
    if stat.S_IMODE(info.st_mode) != FOLDER_MODE:
        os.fchmod(fd, FOLDER_MODE)
    return fd


def parts(relative: str) -> list[str]:
    """The names of a relative path; no "..", nothing absolute."""
    names = [name for name in relative.split("/") if name not in ("", ".")]
    if relative.startswith("/") or ".." in names:
        raise ValueError(f"not a path below the folder: {relative!r}")
    return names
