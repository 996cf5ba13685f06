"""A live Crosstalk (`manage.py serve`, turns run in it) on the stage's backend: a SQLite file
of its own on the embedded stage, a PostgreSQL database of its own (and its own Redis prefix)
when the suite runs on PostgreSQL + Redis. The origin tests drive it over real HTTP."""

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg

from tests.servers import manage, start_server, stop_server


@dataclass(frozen=True)
class Site:
    url: str
    env: dict[str, str]
    token: str  # the person's API token


def site_env(tmp: Path, name: str, **extra: str) -> tuple[dict[str, str], callable]:
    """The server's environment (`extra` on top), and what drops its database afterwards."""
    env = {**os.environ, "DEMO_STEP_SECONDS": "0.01", **extra}
    url = env.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        env["DATABASE_URL"] = f"sqlite:///{tmp / 'db.sqlite3'}"
        env.pop("REDIS_URL", None)
        return env, lambda: None
    db = f"site_{name}_{uuid.uuid4().hex[:10]}"
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {db}")
    env["DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + db
    env["REDIS_PREFIX"] = f"{env.get('REDIS_PREFIX', 'crosstalk')}-{db}"

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")

    return env, drop


def origin_site(tmp: Path, name: str, **extra: str) -> Iterator[Site]:
    env, drop = site_env(tmp, name, **extra)
    try:
        manage(env, "migrate", "--noinput", "-v0")
        token = manage(env, "create_api_token", "person", "--create-user").split()[-1]
        server, url = start_server(env)
        try:
            yield Site(url, env, token)
        finally:
            stop_server(server)
    finally:
        drop()


def rest(site: Site, method: str, path: str, body=None, token: str | None = None):
    headers = {"Authorization": f"Bearer {token or site.token}"}
    return httpx.request(method, site.url + path, json=body, headers=headers, timeout=30)


MAKE_ORIGINS = """
import json
from django.contrib.auth import get_user_model
from accounts.actions import do_allow_runners
from origins.models import Origin
made = []
for spec in json.loads(SPECS):
    user, _ = get_user_model().objects.get_or_create(username=spec.pop("username", "person"))
    if not spec.pop("user_active", True):
        user.is_active = False
        user.save(update_fields=["is_active"])
    if spec.get("agent", "demo") != "demo":
        do_allow_runners(user, allowed=True)
    origin = Origin.objects.create(user=user, **{"agent": "demo", **spec})
    made.append([origin.public_id, origin.secret])
print(json.dumps(made))
"""


def make_origins(site: Site, *specs: dict) -> list[tuple[str, str]]:
    """Origins on the live site, made in one process: (public id, secret) of each spec
    (kind, name, and optionally username, user_active, enabled, settings, agent...; an
    agent other than demo's may run)."""
    code = MAKE_ORIGINS.replace("SPECS", repr(json.dumps(list(specs))))
    out = manage(site.env, "shell", "-c", code)
    return [tuple(made) for made in json.loads(out.strip().splitlines()[-1])]
