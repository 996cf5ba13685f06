"""Crosstalk's entries in a person's config files: parse each file (JSON, JSON with
comments, TOML, KEY=VALUE), add or take out only Crosstalk's own entries, and
write it back atomically, leaving everything else as it was.

Every file is read and changed in memory first: one that cannot be parsed stops
the whole run before anything is written. A file that holds the key is private
(0600) and, inside a git repository, listed in its `info/exclude`.

Committed files stay as they were: a file whose entries would not change is never
rewritten (not even reformatted), and a file git tracks is never written at all —
what to add by hand is printed instead. Each file's bytes before the first write are
kept in the folder's `.crosstalk/originals.json` (private, excluded from git), so
`--remove` puts back exactly those bytes when nothing else changed in it since."""

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agents.attach import gitignore, originals
from agents.attach.atomic import write_atomically


class ConfigFileError(Exception):
    """A file Crosstalk cannot change safely; nothing was written."""


@dataclass(slots=True)
class Edit:
    path: Path
    kind: str  # "json", "jsonc" (comments allowed by its CLI), "toml", "env"
    add: Callable[[Any], None]  # puts Crosstalk's entries into the parsed document
    drop: Callable[[Any], None]  # takes them out again
    secret: bool = False  # holds the key: 0600, and kept out of git
    keep_empty: bool = False  # never deleted, even with nothing left (a CLI's own file)
    only_existing: bool = False  # changed when it exists, never created
    holds_key: bool = False  # a CLI's own file holding the key: created 0600, mode kept


@dataclass(slots=True)
class Planned:
    edit: Edit
    before: str | None
    after: str | None  # None: delete the file
    # Tracked by git: left as it is; what the person may change by hand instead.
    by_hand: str | None = None

    def describe(self) -> str:
        if self.by_hand is not None:
            return self.by_hand
        if self.after is None:
            return f"Removed {self.edit.path}"
        if self.after == self.before:
            return f"Unchanged {self.edit.path}"
        return f"{'Updated' if self.before is not None else 'Wrote'} {self.edit.path}"


def check(edits: list[Edit], folder: Path) -> list[Planned]:
    """Every file read, parsed and changed in memory, nothing written: a ConfigFileError
    now, before anything (a new key, say) is made for a write that cannot happen."""
    plans = [leave_tracked(plan(edit, remove=False)) for edit in edits]
    secrets = [p.edit.path for p in plans if p.edit.secret and p.after is not None]
    try:
        gitignore.refuse_tracked(folder, secrets)
    except gitignore.TrackedSecret as error:
        raise ConfigFileError(str(error)) from error
    return plans


def apply(edits: list[Edit], folder: Path, *, remove: bool = False) -> list[str]:
    """Write (or, `remove`, take out) every edit's entries; what was done, one line each."""
    kept = originals.load(folder)
    if remove:
        plans = [leave_tracked(restored(plan(edit, remove=True), kept)) for edit in edits]
    else:
        plans = check(edits, folder)
        secrets = [p.edit.path for p in plans if p.edit.secret and p.after is not None]
        gitignore.exclude(folder, [*secrets, originals.path(folder)])
        originals.keep(folder, kept, [(p.edit.path, p.before) for p in plans if changes(p)])
    for planned in plans:
        commit(planned)
    if remove:
        originals.forget(folder, kept, [p.edit.path for p in plans])
        secrets = [p.edit.path for p in plans if p.edit.secret]
        if not originals.path(folder).exists():
            secrets.append(originals.path(folder))
        gitignore.unexclude(folder, secrets)
    return [p.describe() for p in plans if p.before is not None or p.after is not None]


def changes(planned: Planned) -> bool:
    return planned.by_hand is None and planned.after != planned.before


def plan(edit: Edit, *, remove: bool) -> Planned:
    before = read(edit.path)
    if before is None and (remove or edit.only_existing):
        return Planned(edit, None, None)
    document = parse(edit, before or "")
    (edit.drop if remove else edit.add)(document)
    if remove and not edit.keep_empty and is_empty(edit.kind, document):
        return Planned(edit, before, None)
    after = dump(edit.kind, document, before)
    if before is not None and after == dump(edit.kind, parse(edit, before), before):
        after = before  # nothing of Crosstalk's to change: the bytes stay, format and all
    return Planned(edit, before, after)


def restored(planned: Planned, kept: dict) -> Planned:
    """--remove: a file whose entries are back to what it held before the first write
    gets that file's exact bytes again (or goes, if it did not exist)."""
    key = str(planned.edit.path)
    if key not in kept or planned.before is None:
        return planned
    original, edit = kept[key], planned.edit
    now = parse(edit, planned.after or "")
    if normal(edit, now) == normal(edit, parse(edit, original or "")):
        return Planned(edit, planned.before, original)
    return planned


def normal(edit: Edit, document) -> str:
    return dump(edit.kind, document, None)


def leave_tracked(planned: Planned) -> Planned:
    """A file git tracks is never written: the change is printed for the person."""
    if not changes(planned) or not gitignore.is_tracked(planned.edit.path):
        return planned
    before, after = planned.before or "", planned.after or ""
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), "now", "with"
        )
    )
    note = (
        f"Left {planned.edit.path} as it is: git tracks it, and Crosstalk never rewrites a "
        f"committed file. To have this CLI read Crosstalk's entries from it, change it "
        f"yourself:\n{diff}"
    )
    return Planned(planned.edit, planned.before, planned.before, by_hand=note)


def commit(planned: Planned) -> None:
    path, after = planned.edit.path, planned.after
    if planned.by_hand is not None:
        return
    if after is None:
        if planned.before is not None:
            path.unlink()
            prune_folders(path.parent)
        return
    if after != planned.before or planned.edit.secret:
        created_with_key = planned.edit.holds_key and planned.before is None
        write_atomically(path, after, private=planned.edit.secret or created_with_key)


def read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigFileError(f"Cannot read {path}: {error}. Nothing was written.") from error


# Formats ------------------------------------------------------------------------


def parse(edit: Edit, text: str):
    try:
        return PARSERS[edit.kind](text)
    except (ValueError, TOMLKitError) as error:
        raise ConfigFileError(
            f"{edit.path} is not valid {edit.kind.upper()} ({error}); it was left as it is "
            "and nothing was written. Fix it, or add Crosstalk's entries by hand "
            "(run agent_config without --write to see them)."
        ) from error


def parse_json(text: str) -> dict:
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("its top level is not an object")
    return data


def parse_jsonc(text: str) -> dict:
    if has_comments(text):
        raise ValueError("it has comments, which Crosstalk cannot keep when it writes")
    return parse_json(text)


def has_comments(text: str) -> bool:
    """Whether JSON text has // or /* */ comments outside its strings."""
    in_string = escaped = False
    for here, char in enumerate(text):
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char == "/" and text[here + 1 : here + 2] in ("/", "*"):
            return True
    return False


def parse_toml(text: str):
    return tomlkit.parse(text)


def parse_env(text: str) -> list[str]:
    if "\0" in text:
        raise ValueError("it holds a NUL byte")
    return text.splitlines()


PARSERS = {"json": parse_json, "jsonc": parse_jsonc, "toml": parse_toml, "env": parse_env}


def dump(kind: str, document, before: str | None) -> str:
    if kind == "toml":
        return tomlkit.dumps(document)
    if kind == "env":
        return "".join(f"{line}\n" for line in document)
    text = json.dumps(document, indent=indent_of(before), ensure_ascii=False)
    return text + ("" if before and not before.endswith("\n") else "\n")


def indent_of(text: str | None) -> str | int:
    """The indentation a JSON file already uses (2 spaces for a new one)."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return 2


def is_empty(kind: str, document) -> bool:
    if kind == "env":
        return not any(line.strip() for line in document)
    if kind == "toml":
        return not tomlkit.dumps(document).strip()
    return not document


# Writing --------------------------------------------------------------------------


def prune_folders(folder: Path) -> None:
    """Folders Crosstalk's files were alone in (`.crosstalk/`, `.gemini/`) go too."""
    try:
        folder.rmdir()
    except OSError:
        return


# Editing parsed documents -----------------------------------------------------------


def table(data: dict, *keys: str) -> dict:
    """data[k1][k2]… as a dict, created where missing."""
    for key in keys:
        if not isinstance(data.get(key), dict):
            data[key] = {}
        data = data[key]
    return data


def prune(data: dict, *keys: str) -> None:
    """Take out data[k1][k2]… and then each parent it left empty."""
    if not keys:
        return
    head, rest = keys[0], keys[1:]
    inner = data.get(head)
    if rest and isinstance(inner, dict):
        prune(inner, *rest)
    if not rest or inner in ({}, []):
        data.pop(head, None)


def drop_items(data: dict, keys: tuple[str, ...], unwanted: Callable[[Any], bool]) -> None:
    """Take the unwanted items out of the list at data[k1][k2]…; empty ones go too."""
    inner = data
    for key in keys[:-1]:
        inner = inner.get(key)
        if not isinstance(inner, dict):
            return
    items = inner.get(keys[-1])
    if isinstance(items, list):
        inner[keys[-1]] = [item for item in items if not unwanted(item)]
        if not inner[keys[-1]]:
            prune(data, *keys)


def add_unique(items: list, new: list) -> list:
    return [*items, *(item for item in new if item not in items)]


def env_file_edit(path: Path, values: dict[str, str], also_drop: list[str] = ()) -> Edit:
    """A KEY=VALUE file holding the key: Crosstalk's lines replaced or taken out (and
    `also_drop`, lines another layout wrote), the person's other lines kept."""
    names = [*values, *also_drop]
    return Edit(
        path,
        "env",
        lambda lines: set_env_lines(lines, values, names),
        lambda lines: drop_env_lines(lines, names),
        secret=True,
    )


def set_env_lines(lines: list[str], values: dict[str, str], names: list[str]) -> None:
    drop_env_lines(lines, names)
    lines.extend(f"{name}={value}" for name, value in values.items())


def drop_env_lines(lines: list[str], names: list[str]) -> None:
    lines[:] = [line for line in lines if line.split("=", 1)[0].strip() not in names]
