"""Settings read from the environment with environs. A bad value stops the start with
ImproperlyConfigured, naming the variable and what it takes."""

import os
import re
import secrets
from functools import partial
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import environs
from django.core.exceptions import ImproperlyConfigured
from marshmallow.fields import Boolean
from marshmallow.validate import Length, OneOf, Range

from kernel.private_files import private_var

# Eager: the first bad value raises. No .env file is read: the environment is the source.
ENV = environs.Env()
# Empty is false too: `SIGNUP=` in an env file means off.
FALSE = {*Boolean.falsy, ""}
# What no agent may get, whatever AGENT_ENV_PASS says.
NEVER_PASSED = frozenset({"SECRET_KEY", "DATABASE_URL", "REDIS_URL"})


def read(kind: str, name: str, default, expected: str = "", **options):
    """$name through environs' parser `kind` (ours below included); `default` when unset.
    A bad value: "NAME must be <expected>, not '<value>'.", else the parser's own sentence."""
    try:
        return getattr(ENV, kind)(name, default, **options)
    except environs.EnvValidationError as error:
        sentence = " ".join(error.error_messages)
        if expected:
            sentence = f"must be {expected}, not {os.environ[name]!r}."
        raise ImproperlyConfigured(f"{name} {sentence}") from None


def env_bool(name: str, default: bool) -> bool:
    return read("bool", name, default, "true or false", falsy=FALSE)


def env_float(name: str, default: float, *, minimum: float = 0) -> float:
    expected = f"a number of at least {minimum}"
    return read("float", name, default, expected, validate=Range(min=minimum))


def env_str(name: str, default: str) -> str:
    """Blanks around dropped; empty reads as unset."""
    return read("str", name, "").strip() or default


def env_list(name: str, default: list[str]) -> list[str]:
    """Comma-separated, blank items dropped; when set, one value at least."""
    some = Length(min=1)
    options = {"subcast": str.strip, "validate": lambda items: some([*filter(None, items)])}
    items = read("list", name, default, "one value or more, comma-separated", **options)
    return [item for item in items if item]


def env_choice(name: str, default: str, choices: set[str]) -> str:
    """One of `choices`, in any case; empty reads as unset."""
    one_of = OneOf({*choices, ""})
    expected = f"one of {', '.join(sorted(choices))}"
    raw = read("str", name, "", expected, validate=lambda raw: one_of(raw.strip().lower()))
    return raw.strip().lower() or default


@ENV.parser_for("base_url")
def base_url(raw: str) -> str:
    """An http(s) base URL without query or fragment (its trailing / dropped), or ""."""
    raw = raw.strip()
    if not raw:
        return ""
    try:
        url = urlsplit(raw)
        url.port  # noqa: B018 (raises for a port that is not a number)
    except ValueError:
        url = None
    if url is None or url.scheme not in {"http", "https"} or not url.hostname:
        raise environs.EnvError(f"must be an http(s):// URL, not {raw!r}.")
    if url.query or url.fragment or url.username or url.password:
        raise environs.EnvError(f"takes no query, fragment or credentials: {raw!r}.")
    return raw.rstrip("/")


@ENV.parser_for("folders")
def folders(raw: str) -> list[Path]:
    """A `:`-separated list of absolute folders (resolved), or [] when empty."""
    paths = []
    for item in filter(None, (part.strip() for part in raw.split(":"))):
        if not item.startswith("/") or "\x00" in item:
            raise environs.EnvError(f"must list absolute folders, not {item!r}.")
        paths.append(Path(os.path.realpath(item)))
    return paths


NAME_OR_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?")


@ENV.parser_for("variable_names")
def variable_names(raw: str) -> list[str]:
    """Variable names (or `PREFIX_*`), separated by commas or colons."""
    items = [item.strip() for item in re.split(r"[,:]", raw) if item.strip()]
    for item in items:
        if not NAME_OR_PREFIX.fullmatch(item):
            raise environs.EnvError(
                f"lists variable names (or PREFIX_*), separated by commas: not {item!r}."
            )
        if any(never.startswith(item.rstrip("*")) for never in NEVER_PASSED):
            raise environs.EnvError(f"may not pass {item}: it is the server's own.")
    return items


LOOPBACK_HOSTS = {"127.0.0.1": "127.0.0.1", "localhost": "localhost", "[::1]": "::1"}


@ENV.parser_for("loopback_ports")
def loopback_ports(raw: str) -> list[tuple[str, int]]:
    """Comma-separated loopback `host:port` pairs (127.0.0.1, [::1] or localhost)."""
    pairs = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        host, _, port = item.rpartition(":")
        if host.lower() not in LOOPBACK_HOSTS or not port.isdigit() or not 0 < int(port) < 65536:
            raise environs.EnvError(
                "lists loopback host:port pairs (127.0.0.1:11434, [::1]:11434, "
                f"localhost:11434), comma-separated; outside addresses need no entry: "
                f"not {item!r}."
            )
        pairs.append((LOOPBACK_HOSTS[host.lower()], int(port)))
    return pairs


# Readers of the parsers above: a variable's name in, its value out (unset: as if empty).
env_url = partial(read, "base_url", default="")
env_paths = partial(read, "folders", default="")
env_names = partial(read, "variable_names", default="")
env_loopback_ports = partial(read, "loopback_ports", default="")


def private_dir(name: str, preferred: Path, fallback: Path) -> Path:
    """$NAME, else `preferred` unless a folder above it may be written by others
    (Gemini ignores a settings file below such a folder, /tmp say), else `fallback`."""
    if raw := env_str(name, ""):
        return Path(raw)
    for folder in preferred.resolve().parents:
        if folder.exists() and folder.stat().st_mode & 0o022:
            return fallback
    return preferred


def secret_key(var_dir: Path) -> str:
    """SECRET_KEY from the environment, else one generated once into var/."""
    # Its sentence never shows the key.
    short = Length(min=32, error="must be at least 32 characters long.")
    if (key := read("str", "SECRET_KEY", None, validate=short)) is not None:
        return key
    path = var_dir / "secret_key"
    if not path.exists():
        private_var(var_dir)
        # Created 0600: never readable by others, not even for a moment.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


def database(var_dir: Path) -> dict:
    """DATABASES['default'] from DATABASE_URL, else SQLite in var/db.sqlite3."""
    if config := read("database_url", "DATABASE_URL", ""):
        return config
    private_var(var_dir)
    return sqlite(var_dir / "db.sqlite3")


@ENV.parser_for("database_url")
def database_url(raw: str) -> dict | None:
    """sqlite:///ABS/PATH or postgres://…; None when empty."""
    raw = raw.strip()
    if not raw:
        return None
    url = urlsplit(raw)
    if url.scheme == "sqlite":
        path = unquote(url.path)
        if url.netloc or not path.startswith("/") or path == "/":
            raise environs.EnvError(f"must be sqlite:///ABSOLUTE/PATH, not {raw!r}.")
        return sqlite(Path(path))
    if url.scheme in {"postgres", "postgresql"}:
        return postgres(url, raw)
    raise environs.EnvError(f"must start with sqlite:/// or postgres://, not {raw!r}.")


SQLITE_CONNECTION_SECONDS = 600


def sqlite(path: Path) -> dict:
    # IMMEDIATE makes every transaction take the write lock at BEGIN, so the
    # limit checks and the insert they guard are serialized; WAL lets readers on.
    # Django's SQLite backend, with one process's writers waiting in line
    # (kernel/sqlite/base.py).
    return {
        "ENGINE": "kernel.sqlite",
        "NAME": path,
        # Kept across requests: opening one (the file, the pragmas, Django's SQL
        # functions) cost a send more than its statements did. Each lives in a thread
        # that outlives requests (crosstalk.handlers pools them), never one per request.
        "CONN_MAX_AGE": SQLITE_CONNECTION_SECONDS,
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
            ),
        },
        # Per process, so two test runs on one machine never share a database.
        "TEST": {"NAME": path.with_name(f"test_{os.getpid()}_{path.name}")},
    }


PREPARE_AFTER = 5  # runs of one statement on one connection (psycopg's own default)


def postgres(url, raw: str) -> dict:
    name = unquote(url.path.lstrip("/"))
    if not name:
        raise environs.EnvError(f"must name a database, not {raw!r}.")
    try:
        port = url.port
    except ValueError:
        raise environs.EnvError(f"has a bad port: {raw!r}.") from None
    query = {key: values[-1] for key, values in parse_qs(url.query).items()}
    # Under ASGI every thread would keep its own connection: a pool instead.
    # The statements a server runs over and over (a send's lock, counters and insert, a
    # hook's reads) are sent with their parameters apart and prepared on each pooled
    # connection once run PREPARE_AFTER times, so PostgreSQL stops parsing and
    # planning them each time (docs/deploy.md: off behind a transaction pooler).
    prepared = query.pop("prepared_statements", "on")
    if prepared not in Boolean.truthy | FALSE:
        raise environs.EnvError(f"takes prepared_statements=on or off, not {prepared!r}.")
    statements = {"server_side_binding": True, "prepare_threshold": PREPARE_AFTER}
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(url.username or ""),
        "PASSWORD": unquote(url.password or ""),
        "HOST": url.hostname or "",
        "PORT": str(port or ""),
        "CONN_MAX_AGE": 0,
        "OPTIONS": {
            "pool": {"min_size": 2, "max_size": 20, "timeout": 20},
            **(statements if prepared in Boolean.truthy else {}),
            **query,
        },
        "TEST": {"NAME": f"test_{name}_{os.getpid()}"},
    }


def channel_layer() -> dict:
    """In-process layer by default; Redis pub/sub (kernel.redis_layer) when REDIS_URL is set."""
    if not (url := read("str", "REDIS_URL", "", "a redis:// URL", validate=redis).strip()):
        return {"BACKEND": "kernel.layers.InProcessLayer"}
    # redis-py 8's default 5 s socket timeout would drop an idle listener; callers bound
    # their own waits (kernel.events, chats.consumers).
    return {
        "BACKEND": "kernel.redis_layer.RedisHintsLayer",
        "CONFIG": {
            "hosts": [{"address": url, "socket_timeout": None}],
            "prefix": env_str("REDIS_PREFIX", "crosstalk"),
            "capacity": 1000,
        },
    }


def redis(raw: str) -> None:
    if raw.strip():
        OneOf({"redis", "rediss", "unix"})(urlsplit(raw.strip()).scheme)
