"""var/ is 0700 and everything in it 0600: on creation and at every start."""

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.db import connection

from crosstalk import env

BASE_DIR = Path(__file__).resolve().parent.parent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_it_makes_an_open_var_folder_private(tmp_path):
    var = tmp_path / "var"
    (var / "agents" / "chat-1").mkdir(parents=True)
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", "agents/chat-1/settings.json"):
        (var / name).write_text("x")
        (var / name).chmod(0o644)
    var.chmod(0o755)
    env.private_var(var)
    assert mode(var) == 0o700
    assert mode(var / "agents") == mode(var / "agents" / "chat-1") == 0o700
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", "agents/chat-1/settings.json"):
        assert mode(var / name) == 0o600, name


def test_it_creates_var_and_the_secret_key_private(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    var = tmp_path / "new" / "var"
    assert len(env.secret_key(var)) > 32
    assert mode(var) == 0o700
    assert mode(var / "secret_key") == 0o600


def test_a_new_sqlite_database_and_its_wal_are_private(tmp_path):
    path = tmp_path / "db.sqlite3"

    class Connection:
        vendor = "sqlite"
        settings_dict = {"NAME": path}

    with sqlite3.connect(path) as db:  # created with the umask's mode, 0644 here
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x)")
        env.private_sqlite_files(None, Connection())
        assert mode(path) == 0o600
        db.execute("INSERT INTO t VALUES (1)")
        assert mode(Path(f"{path}-wal")) == 0o600
        assert mode(Path(f"{path}-shm")) == 0o600


def test_the_real_var_and_the_open_database_are_private(db):
    assert mode(settings.VAR_DIR) == 0o700
    connection.ensure_connection()
    if connection.vendor == "sqlite":
        assert mode(Path(connection.settings_dict["NAME"])) == 0o600
    assert mode(settings.VAR_DIR / "secret_key") == 0o600


def test_every_start_makes_var_private_again():
    loose = settings.VAR_DIR / "loose-file"
    loose.write_text("x")
    try:
        loose.chmod(0o644)
        settings.VAR_DIR.chmod(0o755)
        subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "check"], cwd=BASE_DIR, check=True, capture_output=True
        )
        assert mode(settings.VAR_DIR) == 0o700
        assert mode(loose) == 0o600
    finally:
        loose.unlink()
        os.chmod(settings.VAR_DIR, 0o700)
