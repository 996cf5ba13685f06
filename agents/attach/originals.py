"""What each config file held before agent_config first wrote to it, kept in the
folder's `.crosstalk/originals.json` (private, excluded from git), so `--remove` can
put back the exact bytes. A file that did not exist is kept as null."""

import contextlib
import json
from pathlib import Path

from agents.attach.atomic import write_atomically

ORIGINALS = ".crosstalk/originals.json"


def path(folder: Path) -> Path:
    return Path(folder) / ORIGINALS


def load(folder: Path) -> dict[str, str | None]:
    try:
        data = json.loads(path(folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str | None)}


def keep(folder: Path, kept: dict, befores: list[tuple[Path, str | None]]) -> None:
    """The first `before` of each file stays: a second --write keeps the true original."""
    new = {str(file): before for file, before in befores if str(file) not in kept}
    if new:
        text = json.dumps({**kept, **new}, indent=2, ensure_ascii=False) + "\n"
        write_atomically(path(folder), text, private=True)


def forget(folder: Path, kept: dict, files: list[Path]) -> None:
    """After --remove: these files' originals go; the originals file goes with the last
    (and `.crosstalk/` when it was the last thing in it)."""
    left = {name: text for name, text in kept.items() if name not in {str(f) for f in files}}
    file = path(folder)
    if left:
        write_atomically(file, json.dumps(left, indent=2, ensure_ascii=False) + "\n", private=True)
        return
    file.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        file.parent.rmdir()
