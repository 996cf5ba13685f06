"""Writing a config file so that a reader never sees half of it."""

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, *, private: bool) -> None:
    """A temporary file beside it, then os.replace: a reader sees the old or the new
    file, never half of one. The mode stays (0600 for a file that holds the key)."""
    path = Path(os.path.realpath(path))  # a symlinked dotfile stays a symlink
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600 if private else 0o644 & ~current_umask()
    if private:
        mode = 0o600
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
