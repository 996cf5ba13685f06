"""Every bench/ script in its --quick mode, as a subprocess: a smoke run of seconds
through the benchmark's own code path, so a change that breaks a bench fails here
rather than on the day someone measures. The figures are docs/benchmarks.md's; none
is asserted (a timed assertion on a shared two-core machine would only flake)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.servers import free_port, migrate

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 180  # a stuck bench fails the test instead of hanging the suite

# id → the module and its options; each runs on its own SQLite file and in-process layer.
EMBEDDED = {
    "send": ["bench.send"],
    "send-profile": ["bench.send", "--profile", "{tmp}/send-profile.txt"],
    "hooks": ["bench.hooks"],
    "hooks-sessions": ["bench.hooks", "--sessions", "3"],
    "sockets": ["bench.sockets"],
    "admin": ["bench.admin"],
    "search": ["bench.search"],
    "said": ["bench.said"],
    "sandbox": ["bench.sandbox"],
    "counters_fill": ["bench.counters_fill"],
    "serve_start": ["bench.serve_start"],
}
# The paths that differ on PostgreSQL + Redis: the send's one INSERT statement and its
# Redis push, hints across two web processes, the tsvector search, the counters' buffers.
SHARED = {
    "send": ["bench.send"],
    "sockets-2": ["bench.sockets", "--web-processes", "2"],
    "search": ["bench.search"],
    "said": ["bench.said"],
    "counters_fill": ["bench.counters_fill"],
}
NEEDS = {"sandbox": ("bwrap", "bubblewrap (`bwrap`) is not installed here")}


def bench_env(tmp_path: Path, **chosen: str) -> dict:
    """The caller's environment without the suite's own database, layer and settings
    (a bench picks its settings as it does when run by hand), its files in tmp_path."""
    own = {"DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "DJANGO_SETTINGS_MODULE"}
    env = {k: v for k, v in os.environ.items() if k not in own}
    return env | {"BENCH_VAR": str(tmp_path), "BENCH_TIMING_ONLY": "1"} | chosen


def run_quick(argv: list[str], env: dict, tmp_path: Path) -> None:
    command = [sys.executable, "-m", *(a.format(tmp=tmp_path) for a in argv), "--quick"]
    done = subprocess.run(  # noqa: S603 (our own bench modules, fixed arguments)
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, f"{' '.join(command[2:])} failed:\n{done.stdout}{done.stderr}"


@pytest.mark.embedded_only
@pytest.mark.parametrize("name", EMBEDDED)
def test_it_runs_the_bench_quickly_on_sqlite(name, tmp_path):
    if name in NEEDS and shutil.which(NEEDS[name][0]) is None:
        pytest.skip(NEEDS[name][1])
    env = bench_env(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(env)  # a copy of one migrated file: the bench's own migrate finds nothing to do
    run_quick(EMBEDDED[name], env, tmp_path)


@pytest.fixture
def postgres_database():
    """A database of the test's own beside the suite's (a bench migrates it, changes the
    peer limits and makes accounts), dropped afterwards."""
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres") or not os.environ.get("REDIS_URL"):
        pytest.skip("needs PostgreSQL and Redis (DATABASE_URL=postgres://…, REDIS_URL)")
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_bench_{free_port()}"
    maintenance = parts._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield parts._replace(path=f"/{name}").geturl()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.parametrize("name", SHARED)
def test_it_runs_the_bench_quickly_on_postgres_and_redis(name, tmp_path, postgres_database):
    env = bench_env(
        tmp_path,
        DATABASE_URL=postgres_database,
        REDIS_URL=os.environ["REDIS_URL"],
        REDIS_PREFIX=f"bench-quick-{free_port()}",
    )
    run_quick(SHARED[name], env, tmp_path)
