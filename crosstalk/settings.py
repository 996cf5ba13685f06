from pathlib import Path

from crosstalk import env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

SECRET_KEY = env.secret_key(VAR_DIR)
# Off unless DEBUG=1: a traceback page shows source and settings to anyone.
DEBUG = env.env_bool("DEBUG", False)
ALLOWED_HOSTS = env.env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Behind a reverse proxy on https (docs/deploy.md): the origins the browser sees.
CSRF_TRUSTED_ORIGINS = env.env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "ninja",  # its static files serve /api/v1/docs (no CDN)
    "accounts",
    "chats",
    "peers",
    "agents",
    # Last: only for its management command (serve); it is the top of the house.
    "crosstalk",
]

MIDDLEWARE = [
    # First: it sees every answer, CSRF's and Django's error pages included.
    "crosstalk.middleware.ApiGuardMiddleware",
    "crosstalk.middleware.IdempotencyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "crosstalk.urls"
ASGI_APPLICATION = "crosstalk.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.database(VAR_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
CHANNEL_LAYERS = {"default": env.channel_layer()}

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/chats/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

# Seconds one step of the demo agent takes.
DEMO_STEP_SECONDS = env.env_float("DEMO_STEP_SECONDS", 1.0)
# Run turns inside the web process (the embedded default) or only in workers.
TURNS_IN_PROCESS = env.env_bool("TURNS_IN_PROCESS", True)
# How many turns one runner process works on at once.
TURNS_CONCURRENCY = int(env.env_float("TURNS_CONCURRENCY", 16, minimum=1))
# How many turns of one account one runner works on at once; the others wait in order.
TURNS_PER_ACCOUNT = int(env.env_float("TURNS_PER_ACCOUNT", 4, minimum=1))
# A JSON body under /api/v1/ larger than this is refused (413 too_large) unread.
API_MAX_BODY_BYTES = 2 * 1024 * 1024
# A turn whose worker died (SIGKILL, a lost machine) fails within this many seconds.
TURN_LEASE_SECONDS = env.env_float("TURN_LEASE_SECONDS", 30, minimum=1)

# Longest a hosted agent's turn (a CLI's process) may run before its group is killed.
TURN_TIMEOUT_SECONDS = env.env_float("TURN_TIMEOUT_SECONDS", 1800, minimum=1)
# Where hosted CLIs reach this server (their MCP server and hooks); per process group.
CROSSTALK_URL = env.env_str("CROSSTALK_URL", f"http://127.0.0.1:{env.env_str('PORT', '8000')}")
# Per-chat configuration the runner writes for hosted CLIs (never into the person's repo).
AGENTS_DIR = env.private_dir(
    "AGENTS_DIR", VAR_DIR / "agents", Path.home() / ".cache" / "crosstalk" / "agents"
)
# `bwrap`: each hosted agent runs under bubblewrap (its folder, its own home, the system
# read-only; no var/, no view of the server's processes). `none`: as the server's user.
AGENT_SANDBOX = env.env_choice("AGENT_SANDBOX", "none", {"none", "bwrap"})
# Variables of the server's a hosted agent gets beyond the allow-list (NAME or PREFIX_*).
AGENT_ENV_PASS = env.env_names("AGENT_ENV_PASS")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"crosstalk": {"level": "INFO"}, "agents": {"level": "INFO"}},
}
