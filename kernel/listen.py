"""Where the running server listens, for the commands that need its URL
(`agent_config`): each `manage.py serve` process records its URL in
var/listen/<pid>.json while it runs, with the database it serves, so a command
finds the server of its own database and never a stale or unrelated one."""

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings
from django.db import connection

ANSWER_SECONDS = 3


def folder() -> Path:
    return Path(settings.VAR_DIR) / "listen"


def database() -> str:
    """Which database this process uses: a server of another one is not ours."""
    conf = connection.settings_dict
    return f"{connection.vendor}:{conf.get('HOST') or ''}:{conf.get('PORT') or ''}:{conf['NAME']}"


def record(url: str) -> Path:
    """Called by `serve` once it listens; `forget(path)` when it stops."""
    place = folder()
    place.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = place / f"{os.getpid()}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({"url": url, "pid": os.getpid(), "database": database()}))
    os.replace(temporary, path)
    return path


def forget(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def running_url() -> str | None:
    """The URL of a running server of this database that answers, or None."""
    for entry in sorted(folder().glob("*.json")):
        try:
            found = json.loads(entry.read_text())
            url, pid = str(found["url"]), int(found["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not alive(pid):
            entry.unlink(missing_ok=True)  # a server that was killed left it behind
            continue
        if found.get("database") == database() and answers(url):
            return url
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url.rstrip("/") + "/", timeout=ANSWER_SECONDS)  # noqa: S310
    except urllib.error.HTTPError:
        return True  # any HTTP answer: it is up
    except (OSError, ValueError):
        return False
    return True
