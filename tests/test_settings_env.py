import os
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from kernel import env


def refused(name: str):
    """Expect ImproperlyConfigured naming the variable `name`."""
    return pytest.raises(ImproperlyConfigured, match=name)


@pytest.mark.parametrize(
    "url",
    [
        "mysql://user@host/db",
        "sqlite:relative/path.sqlite3",
        "sqlite://relative/path.sqlite3",
        "sqlite:///",
        "postgres://postgres@127.0.0.1:5432",
        "postgres://postgres@127.0.0.1:5432/",
        "postgres://postgres@127.0.0.1:notaport/db",
    ],
)
def test_it_refuses_a_bad_database_url(monkeypatch, tmp_path, url):
    monkeypatch.setenv("DATABASE_URL", url)
    with refused("DATABASE_URL"):
        env.database(tmp_path)


def test_it_defaults_to_sqlite_under_var(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    config = env.database(tmp_path / "var")
    assert config["ENGINE"] == "kernel.sqlite"  # Django's, writers in line
    assert config["NAME"] == tmp_path / "var" / "db.sqlite3"
    assert (tmp_path / "var").is_dir()


def test_it_reads_an_absolute_sqlite_path(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_URL", "sqlite:///srv/data/crosstalk.sqlite3")
    config = env.database(tmp_path)
    assert config["NAME"] == Path("/srv/data/crosstalk.sqlite3")
    # One test database per process, beside the real one.
    assert config["TEST"]["NAME"] == Path(f"/srv/data/test_{os.getpid()}_crosstalk.sqlite3")


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_it_reads_a_postgres_url(monkeypatch, tmp_path, scheme):
    monkeypatch.setenv(
        "DATABASE_URL", f"{scheme}://me:p%40ss@db.internal:6543/crosstalk?sslmode=require"
    )
    config = env.database(tmp_path)
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("crosstalk", "me", "p@ss")
    assert (config["HOST"], config["PORT"]) == ("db.internal", "6543")
    assert config["OPTIONS"]["sslmode"] == "require"
    # Statements are prepared on each pooled connection once they repeat.
    assert config["OPTIONS"]["server_side_binding"] is True
    assert config["OPTIONS"]["prepare_threshold"] == env.PREPARE_AFTER


def test_it_prepared_statements_can_be_turned_off_for_a_transaction_pooler(monkeypatch, tmp_path):
    url = "postgres://me@pgbouncer:6432/crosstalk?prepared_statements=off&sslmode=require"
    monkeypatch.setenv("DATABASE_URL", url)
    options = env.database(tmp_path)["OPTIONS"]
    assert options == {"pool": options["pool"], "sslmode": "require"}


def test_it_refuses_a_prepared_statements_value_that_is_not_a_boolean(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_URL", "postgres://me@db/crosstalk?prepared_statements=-1")
    with refused("prepared_statements"):
        env.database(tmp_path)


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379/0", "127.0.0.1:6379", "memcached://x"])
def test_it_refuses_a_bad_redis_url(monkeypatch, url):
    monkeypatch.setenv("REDIS_URL", url)
    with refused("REDIS_URL"):
        env.channel_layer()


def test_it_uses_the_in_memory_layer_without_redis(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert env.channel_layer()["BACKEND"] == "kernel.layers.InProcessLayer"


def test_it_reads_a_redis_url(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/2")
    config = env.channel_layer()
    assert config["BACKEND"] == "kernel.redis_layer.RedisHintsLayer"
    assert config["CONFIG"]["hosts"][0]["address"] == "redis://127.0.0.1:6379/2"


def test_it_refuses_a_debug_that_is_not_a_boolean(monkeypatch):
    monkeypatch.setenv("DEBUG", "maybe")
    with refused("DEBUG"):
        env.env_bool("DEBUG", True)


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False)]
)
def test_it_reads_booleans(monkeypatch, raw, expected):
    monkeypatch.setenv("DEBUG", raw)
    assert env.env_bool("DEBUG", not expected) is expected


def test_it_falls_back_to_defaults_when_unset(monkeypatch):
    for name in ("DEBUG", "ALLOWED_HOSTS", "DEMO_STEP_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    assert env.env_bool("DEBUG", True) is True
    assert env.env_list("ALLOWED_HOSTS", ["localhost"]) == ["localhost"]
    assert env.env_float("DEMO_STEP_SECONDS", 1.0) == 1.0


def test_it_reads_and_refuses_lists(monkeypatch):
    monkeypatch.setenv("ALLOWED_HOSTS", " example.com, ,api.example.com ")
    assert env.env_list("ALLOWED_HOSTS", []) == ["example.com", "api.example.com"]
    monkeypatch.setenv("ALLOWED_HOSTS", " , ")
    with refused("ALLOWED_HOSTS"):
        env.env_list("ALLOWED_HOSTS", [])


@pytest.mark.parametrize("raw", ["abc", "-1", "-0.1", ""])
def test_it_refuses_a_bad_step(monkeypatch, raw):
    monkeypatch.setenv("DEMO_STEP_SECONDS", raw)
    with refused("DEMO_STEP_SECONDS"):
        env.env_float("DEMO_STEP_SECONDS", 1.0)


@pytest.mark.parametrize(("raw", "expected"), [("0.3", 0.3), ("2", 2.0), ("0", 0.0)])
def test_it_reads_a_fractional_step(monkeypatch, raw, expected):
    monkeypatch.setenv("DEMO_STEP_SECONDS", raw)
    assert env.env_float("DEMO_STEP_SECONDS", 1.0) == expected


def test_it_refuses_a_short_secret_key(monkeypatch, tmp_path):
    monkeypatch.setenv("SECRET_KEY", "x" * 31)
    with refused("SECRET_KEY"):
        env.secret_key(tmp_path)


def test_it_takes_a_long_secret_key_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SECRET_KEY", "k" * 32)
    assert env.secret_key(tmp_path) == "k" * 32
    assert not (tmp_path / "secret_key").exists()


def test_it_generates_a_secret_key_once(monkeypatch, tmp_path):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    first = env.secret_key(tmp_path / "var")
    assert len(first) >= 50
    assert env.secret_key(tmp_path / "var") == first
    assert (tmp_path / "var" / "secret_key").stat().st_mode & 0o077 == 0


def test_it_agent_folders_are_absolute_roots_resolved(monkeypatch, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.setenv("AGENT_FOLDERS", f"{tmp_path / 'link'}: :/srv/agents")
    assert env.env_paths("AGENT_FOLDERS") == [(tmp_path / "real").resolve(), Path("/srv/agents")]
    monkeypatch.delenv("AGENT_FOLDERS")
    assert env.env_paths("AGENT_FOLDERS") == []


@pytest.mark.parametrize("value", ["relative/folder", "/srv:repos", "-rf"])
def test_it_agent_folders_refuses_a_relative_root(monkeypatch, value):
    monkeypatch.setenv("AGENT_FOLDERS", value)
    with refused("AGENT_FOLDERS"):
        env.env_paths("AGENT_FOLDERS")


def test_it_reads_the_names_an_agent_may_get(monkeypatch):
    monkeypatch.setenv("AGENT_ENV_PASS", " MY_KEY, AWS_*:OTHER ")
    assert env.env_names("AGENT_ENV_PASS") == ["MY_KEY", "AWS_*", "OTHER"]
    monkeypatch.delenv("AGENT_ENV_PASS")
    assert env.env_names("AGENT_ENV_PASS") == []


@pytest.mark.parametrize(
    "raw", ["SECRET_KEY", "MY_KEY,DATABASE_URL", "REDIS_*", "RED*", "*", "A B", "-x", "A=1"]
)
def test_it_refuses_to_pass_the_servers_own_or_a_bad_name(monkeypatch, raw):
    monkeypatch.setenv("AGENT_ENV_PASS", raw)
    with refused("AGENT_ENV_PASS"):
        env.env_names("AGENT_ENV_PASS")


def test_it_reads_and_refuses_a_sandbox(monkeypatch):
    monkeypatch.setenv("AGENT_SANDBOX", "BWRAP")
    assert env.env_choice("AGENT_SANDBOX", "none", {"none", "bwrap"}) == "bwrap"
    monkeypatch.setenv("AGENT_SANDBOX", "docker")
    with refused("AGENT_SANDBOX"):
        env.env_choice("AGENT_SANDBOX", "none", {"none", "bwrap"})


def test_it_reads_the_public_url_without_its_trailing_slash(monkeypatch):
    monkeypatch.setenv("CROSSTALK_PUBLIC_URL", " https://crosstalk.example.com/ ")
    assert env.env_url("CROSSTALK_PUBLIC_URL") == "https://crosstalk.example.com"
    monkeypatch.delenv("CROSSTALK_PUBLIC_URL")
    assert env.env_url("CROSSTALK_PUBLIC_URL") == ""


@pytest.mark.parametrize(
    "raw",
    [
        "crosstalk.example.com",
        "ftp://crosstalk.example.com",
        "https://",
        "https://example.com:port",
        "https://example.com/?x=1",
        "https://me:pw@example.com",
    ],
)
def test_it_refuses_a_public_url_that_is_not_a_base_url(monkeypatch, raw):
    monkeypatch.setenv("CROSSTALK_PUBLIC_URL", raw)
    with refused("CROSSTALK_PUBLIC_URL"):
        env.env_url("CROSSTALK_PUBLIC_URL")


def test_it_reads_the_loopback_ports_the_jail_may_reach(monkeypatch):
    monkeypatch.delenv("AGENT_NET_ALLOW", raising=False)
    assert env.env_loopback_ports("AGENT_NET_ALLOW") == []
    monkeypatch.setenv("AGENT_NET_ALLOW", " 127.0.0.1:11434, [::1]:8080,LOCALHOST:9000 ")
    assert env.env_loopback_ports("AGENT_NET_ALLOW") == [
        ("127.0.0.1", 11434),
        ("::1", 8080),
        ("localhost", 9000),
    ]


@pytest.mark.parametrize(
    "raw", ["10.0.0.5:11434", "127.0.0.1", "127.0.0.1:0", "::1:8080", "localhost:http", ":80"]
)
def test_it_refuses_what_is_not_a_loopback_port(monkeypatch, raw):
    monkeypatch.setenv("AGENT_NET_ALLOW", raw)
    with refused("AGENT_NET_ALLOW"):
        env.env_loopback_ports("AGENT_NET_ALLOW")
