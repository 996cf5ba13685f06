"""Settings read from the environment; a bad value names its variable."""

import contextlib
import os
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    return default if raw is None else env_bool_value(name, raw)


def env_bool_value(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}.")


def env_str(name: str, default: str) -> str:
    raw = os.environ.get(name, "").strip()
    return raw or default


def private_dir(name: str, preferred: Path, fallback: Path) -> Path:
    """$NAME, else `preferred` unless a folder above it may be written by others
    (Gemini ignores a settings file below such a folder, /tmp say), else `fallback`."""
    raw = os.environ.get(name, "").strip()
    if raw:
        return Path(raw)
    for folder in preferred.resolve().parents:
        if folder.exists() and folder.stat().st_mode & 0o022:
            return fallback
    return preferred


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} must list at least one value, comma-separated.")
    return items


def env_paths(name: str) -> list[Path]:
    """A `:`-separated list of absolute folders (resolved), or [] when unset or empty."""
    raw = os.environ.get(name, "")
    paths = []
    for item in (part.strip() for part in raw.split(":")):
        if not item:
            continue
        if not item.startswith("/") or "\x00" in item:
            raise ImproperlyConfigured(f"{name} must list absolute folders, not {item!r}.")
        paths.append(Path(os.path.realpath(item)))
    return paths


NAME_OR_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?")
# What no agent may get, whatever AGENT_ENV_PASS says.
NEVER_PASSED = frozenset({"SECRET_KEY", "DATABASE_URL", "REDIS_URL"})


def env_names(name: str) -> list[str]:
    """Variable names (or `PREFIX_*`), separated by commas or colons."""
    raw = os.environ.get(name, "")
    items = [item.strip() for item in re.split(r"[,:]", raw) if item.strip()]
    for item in items:
        if not NAME_OR_PREFIX.fullmatch(item):
            raise ImproperlyConfigured(
                f"{name} lists variable names (or PREFIX_*), separated by commas: not {item!r}."
            )
        if any(never.startswith(item.rstrip("*")) for never in NEVER_PASSED):
            raise ImproperlyConfigured(f"{name} may not pass {item}: it is the server's own.")
    return items


def env_choice(name: str, default: str, choices: set[str]) -> str:
    raw = os.environ.get(name, "").strip().lower() or default
    if raw not in choices:
        raise ImproperlyConfigured(
            f"{name} must be one of {', '.join(sorted(choices))}, not {raw!r}."
        )
    return raw


def env_float(name: str, default: float, *, minimum: float = 0) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {raw!r}.")
    return value


def secret_key(var_dir: Path) -> str:
    """SECRET_KEY from the environment, else one generated once into var/."""
    raw = os.environ.get("SECRET_KEY")
    if raw is not None:
        if len(raw) < 32:
            raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long.")
        return raw
    path = var_dir / "secret_key"
    if not path.exists():
        private_var(var_dir)
        # Created 0600: never readable by others, not even for a moment.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


def private_var(var_dir: Path) -> None:
    """var/ holds the database (session keys in clear) and the secret key: the folder is
    made 0700 and everything in it 0600 (folders 0700), on creation and at every start."""
    var_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        var_dir.chmod(0o700)
        for path in var_dir.rglob("*"):
            make_private(path)
    except OSError as error:
        raise ImproperlyConfigured(f"Could not make {var_dir} private: {error}") from None


def make_private(path: Path) -> None:
    if path.is_symlink():
        return
    mode = 0o700 if path.is_dir() else 0o600
    if path.exists() and path.stat().st_mode & 0o777 != mode:
        path.chmod(mode)


def private_sqlite_files(sender, connection, **kwargs) -> None:
    """connection_created: a SQLite database and its -wal/-shm are 0600 once open (SQLite
    gives -wal and -shm the database file's own mode)."""
    if connection.vendor != "sqlite":
        return
    name = str(connection.settings_dict["NAME"])
    if name.startswith("file:") or ":memory:" in name:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = Path(name + suffix)
        with contextlib.suppress(OSError):
            make_private(path)


def database(var_dir: Path) -> dict:
    """DATABASES['default'] from DATABASE_URL (sqlite:///ABS/PATH or postgres://…)."""
    raw = os.environ.get("DATABASE_URL", "").strip()
    if not raw:
        private_var(var_dir)
        return sqlite(var_dir / "db.sqlite3")
    url = urlsplit(raw)
    if url.scheme == "sqlite":
        path = unquote(url.path)
        if url.netloc or not path.startswith("/") or path == "/":
            raise ImproperlyConfigured(
                f"DATABASE_URL must be sqlite:///ABSOLUTE/PATH, not {raw!r}."
            )
        return sqlite(Path(path))
    if url.scheme in {"postgres", "postgresql"}:
        return postgres(url, raw)
    raise ImproperlyConfigured(
        f"DATABASE_URL must start with sqlite:/// or postgres://, not {raw!r}."
    )


SQLITE_CONNECTION_SECONDS = 600


def sqlite(path: Path) -> dict:
    # IMMEDIATE makes every transaction take the write lock at BEGIN, so the
    # limit checks and the insert they guard are serialized; WAL lets readers on.
    # Django's SQLite backend, with one process's writers waiting in line
    # (crosstalk/sqlite/base.py).
    return {
        "ENGINE": "crosstalk.sqlite",
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
        raise ImproperlyConfigured(f"DATABASE_URL must name a database, not {raw!r}.")
    try:
        port = url.port
    except ValueError:
        raise ImproperlyConfigured(f"DATABASE_URL has a bad port: {raw!r}.") from None
    query = {key: values[-1] for key, values in parse_qs(url.query).items()}
    # Under ASGI every thread would keep its own connection: a pool instead.
    # The statements a server runs over and over (a send's lock, counters and insert, a
    # hook's reads) are sent with their parameters apart and prepared on each pooled
    # connection once run PREPARE_AFTER times, so PostgreSQL stops parsing and
    # planning them each time (docs/deploying.md: off behind a transaction pooler).
    prepared = env_bool_value("prepared_statements", query.pop("prepared_statements", "on"))
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
            **(statements if prepared else {}),
            **query,
        },
        "TEST": {"NAME": f"test_{name}_{os.getpid()}"},
    }


def channel_layer() -> dict:
    """In-process layer by default; Redis pub/sub (chats.redis_layer) when REDIS_URL is set."""
    raw = os.environ.get("REDIS_URL", "").strip()
    if not raw:
        return {"BACKEND": "chats.layers.InProcessLayer"}
    if urlsplit(raw).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"REDIS_URL must start with redis://, not {raw!r}.")
    # redis-py 8's default 5 s socket timeout would drop an idle listener; callers bound
    # their own waits (chats.events, chats.consumers).
    return {
        "BACKEND": "chats.redis_layer.RedisHintsLayer",
        "CONFIG": {
            "hosts": [{"address": raw, "socket_timeout": None}],
            "prefix": os.environ.get("REDIS_PREFIX", "crosstalk"),
            "capacity": 1000,
        },
    }
