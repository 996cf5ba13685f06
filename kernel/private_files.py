"""var/ holds the database (session keys in clear) and the secret key: nobody else reads it."""

import contextlib
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def private_var(var_dir: Path, *, people: Path | None = None) -> None:
    """var/ is made 0700 and everything in it 0600 (folders 0700), on creation and at
    every start. In `people` (accounts' working folders) only it and each account's folder
    are made 0700: what people keep below is theirs (a script stays executable)."""
    var_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        var_dir.chmod(0o700)
        for top, folders, files in os.walk(var_dir):
            for name in [*folders, *files]:
                make_private(Path(top, name))
            if people is not None and Path(top) == people:
                folders.clear()
    except OSError as error:
        raise ImproperlyConfigured(f"Could not make {var_dir} private: {error}") from None


def make_private(path: Path) -> None:
    if path.is_symlink():
        return
    mode = 0o700 if path.is_dir() else 0o600
    if path.exists() and path.stat().st_mode & 0o777 != mode:
        path.chmod(mode)


def private_sqlite_files(sender, connection, **kwargs) -> None:
    """connection_created: a SQLite database and its -wal/-shm are 0600 once open (SQLite
    gives -wal and -shm the database file's own mode)."""
    if connection.vendor != "sqlite":
        return
    name = str(connection.settings_dict["NAME"])
    if name.startswith("file:") or ":memory:" in name:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = Path(name + suffix)
        with contextlib.suppress(OSError):
            make_private(path)
