"""var/ is 0700 and everything in it 0600: on creation and at every start."""

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.db import connection

from kernel import env, private_files

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
    private_files.private_var(var)
    assert mode(var) == 0o700
    assert mode(var / "agents") == mode(var / "agents" / "chat-1") == 0o700
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", "agents/chat-1/settings.json"):
        assert mode(var / name) == 0o600, name


def test_it_leaves_what_people_keep_in_their_working_folders_alone(tmp_path):
    """var/folders/<username>/ is made private; below it, a script stays executable."""
    var = tmp_path / "var"
    script = var / "folders" / "alice" / "shop-web" / "run.sh"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    for path in (script, script.parent, script.parent.parent, var / "folders"):
        path.chmod(0o755)
    private_files.private_var(var, people=var / "folders")
    assert mode(var / "folders") == mode(var / "folders" / "alice") == 0o700
    assert mode(script.parent) == mode(script) == 0o755


def test_it_never_follows_a_link_an_agent_left_in_var(tmp_path):
    """A hosted agent writes its folder under var/agents/: a link it left there points
    at a file and a folder of the server's, whose modes stay as they are."""
    outside, outside_folder = tmp_path / "servers-own.txt", tmp_path / "servers-folder"
    outside.write_text("x")
    outside.chmod(0o644)
    outside_folder.mkdir(mode=0o755)
    home = tmp_path / "var" / "agents" / "chat-1" / "home"
    home.mkdir(parents=True)
    (home / ".claude.json").symlink_to(outside)
    (home / ".claude").symlink_to(outside_folder)
    private_files.private_var(tmp_path / "var")
    assert mode(outside) == 0o644 and mode(outside_folder) == 0o755
    assert mode(home) == 0o700


def test_it_creates_var_and_the_secret_key_private(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    var = tmp_path / "new" / "var"
    assert len(env.secret_key(var)) > 32
    assert mode(var) == 0o700
    assert mode(var / "secret_key") == 0o600


def test_it_a_new_sqlite_database_and_its_wal_are_private(tmp_path):
    path = tmp_path / "db.sqlite3"

    class Connection:
        vendor = "sqlite"
        settings_dict = {"NAME": path}

    with sqlite3.connect(path) as db:  # created with the umask's mode, 0644 here
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x)")
        private_files.private_sqlite_files(None, Connection())
        assert mode(path) == 0o600
        db.execute("INSERT INTO t VALUES (1)")
        assert mode(Path(f"{path}-wal")) == 0o600
        assert mode(Path(f"{path}-shm")) == 0o600


def test_it_the_real_var_and_the_open_database_are_private(db):
    assert mode(settings.VAR_DIR) == 0o700
    connection.ensure_connection()
    if connection.vendor == "sqlite":
        assert mode(Path(connection.settings_dict["NAME"])) == 0o600
    assert mode(settings.VAR_DIR / "secret_key") == 0o600


def test_it_every_start_makes_var_private_again():
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
