"""Fixtures that start real processes on the test database (committed data only)."""

import pytest
from django.conf import settings
from django.test import Client

from tests.reliability.procs import Proc, database_url, free_port, stop_all

# A killed worker's turn fails within this many seconds (leases of 4 s, checks every 1 s).
LEASE_SECONDS = 6


@pytest.fixture
def processes(transactional_db, redis_server, tmp_path):
    """start(kind, name) → a Proc: "worker" (run_turns) or "web" (serve, port in .port)."""
    started: list[Proc] = []
    env = {
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_server.url,
        "REDIS_PREFIX": f"rel-{free_port()}",
        "SECRET_KEY": settings.SECRET_KEY,
        "TURN_LEASE_SECONDS": str(LEASE_SECONDS),
        "DEMO_STEP_SECONDS": "0.5",
        "TURNS_CONCURRENCY": "1",
    }

    def start(kind: str, name: str) -> Proc:
        if kind == "worker":
            proc = Proc(name, ["run_turns", "--worker-id", name], env, tmp_path)
            proc.wait_for_line("is waiting for turns")
        else:
            port = free_port()
            proc = Proc(name, ["serve", "--port", str(port), "--no-runner"], env, tmp_path)
            proc.port = port
            proc.wait_for_line("Crosstalk is running")
        started.append(proc)
        return proc

    yield start
    stop_all(started)


@pytest.fixture
def session_cookie(owner) -> str:
    client = Client()
    client.force_login(owner)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
