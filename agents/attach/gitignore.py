"""Keeping the files that hold a chat's key out of git: listed in the repository's
`info/exclude` (never in a `.gitignore` the person commits), found through git
itself so worktrees and `GIT_DIR` layouts are right. Outside a repository there
is nothing to do."""

import os
import subprocess
from pathlib import Path

from agents.attach.atomic import write_atomically

MARK = "# added by crosstalk agent_config (agent_config --remove takes it out)"


class TrackedSecret(Exception):
    """A file that would hold the key is tracked by git."""


def git(folder: Path, *args: str) -> str | None:
    """git's answer in `folder`, or None outside a repository (or without git)."""
    try:
        done = subprocess.run(  # noqa: S603
            ["git", *args],  # noqa: S607 - the person's own git
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=20,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def repository(folder: Path) -> tuple[Path, Path] | None:
    """(work tree root, info/exclude file) of the repository `folder` is in."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    top = git(folder, "rev-parse", "--show-toplevel")
    exclude = git(folder, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
    if not top or not exclude:
        return None
    return Path(os.path.realpath(top)), Path(exclude)


def patterns(root: Path, paths: list[Path]) -> list[str]:
    """Anchored patterns for the paths inside the work tree."""
    found = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real.is_relative_to(root):
            found.append("/" + real.relative_to(root).as_posix())
    return found


def refuse_tracked(folder: Path, paths: list[Path]) -> None:
    found = repository(folder)
    if not found:
        return
    root, _ = found
    for pattern in patterns(root, paths):
        if git(root, "ls-files", "--error-unmatch", "--", pattern[1:]) is not None:
            raise TrackedSecret(
                f"{pattern[1:]} is tracked by git, so the key would end up in a commit; "
                f"nothing was written. Untrack it first: git rm --cached {pattern[1:]}"
            )


def exclude(folder: Path, paths: list[Path]) -> list[str]:
    """Add the paths to info/exclude (once each); the patterns added."""
    found = repository(folder)
    if not found:
        return []
    root, exclude_file = found
    lines = read_lines(exclude_file)
    added = [p for p in patterns(root, paths) if p not in lines]
    if added:
        tail = ["" if lines and lines[-1] else None]
        for pattern in added:
            tail += [MARK, pattern]
        write_lines(exclude_file, lines + [line for line in tail if line is not None])
    return added


def unexclude(folder: Path, paths: list[Path]) -> None:
    """Take out the lines `exclude` added for these paths (and only those)."""
    found = repository(folder)
    if not found:
        return
    root, exclude_file = found
    ours = set(patterns(root, paths))
    lines, kept = read_lines(exclude_file), []
    for line in lines:
        if line in ours and kept and kept[-1] == MARK:
            kept.pop()
            continue
        kept.append(line)
    while kept and not kept[-1] and len(kept) < len(lines):
        kept.pop()
    if kept != lines:
        write_lines(exclude_file, kept)


def read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []


def write_lines(path: Path, lines: list[str]) -> None:
    write_atomically(path, "".join(f"{line}\n" for line in lines), private=False)


def is_tracked(path: Path) -> bool:
    """Whether git tracks this file (outside a repository, or missing: no)."""
    path = Path(path)
    if not path.parent.is_dir():
        return False
    return git(path.parent, "ls-files", "--error-unmatch", "--", path.name) is not None
