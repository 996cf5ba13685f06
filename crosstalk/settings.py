from datetime import timedelta
from pathlib import Path

from django.utils.csp import CSP

from kernel import env, private_files

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
# Where accounts' working folders go when AGENT_FOLDERS is unset (chats.folders).
AGENT_FOLDERS_DEFAULT = VAR_DIR / "folders"

# var/ is 0700 and everything in it 0600, at every start (kernel.private_files); of
# the working folders, only the root and each account's own folder (0700).
private_files.private_var(VAR_DIR, people=AGENT_FOLDERS_DEFAULT)
SECRET_KEY = env.secret_key(VAR_DIR)
# Off unless DEBUG=1: a traceback page shows source and settings to anyone.
DEBUG = env.env_bool("DEBUG", False)
ALLOWED_HOSTS = env.env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Behind a reverse proxy on https (docs/deploy.md): the origins the browser sees.
CSRF_TRUSTED_ORIGINS = env.env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "axes",  # login throttling (accounts.throttle)
    "django_htmx",
    "ninja",  # its static files serve /api/v1/docs (no CDN)
    "kernel",
    "accounts",
    "chats",
    "peers",
    "agents",
    "origins",
    # Last: only for its management command (serve); it is the top of the house.
    "crosstalk",
]

MIDDLEWARE = [
    # First: it sees every answer, CSRF's and Django's error pages included.
    "crosstalk.middleware.ApiGuardMiddleware",
    "crosstalk.middleware.IdempotencyMiddleware",
    # Django's own, each as Django has it, but: the ones that only set headers run on
    # the event loop, and the ones for browsers pass by an API request with a bearer
    # secret and no cookie (crosstalk.django_middleware).
    "crosstalk.django_middleware.SecurityMiddleware",
    "crosstalk.django_middleware.SessionMiddleware",
    "crosstalk.django_middleware.CommonMiddleware",
    "crosstalk.django_middleware.CsrfViewMiddleware",
    "crosstalk.django_middleware.AuthenticationMiddleware",
    "crosstalk.django_middleware.MessageMiddleware",
    "crosstalk.django_middleware.XFrameOptionsMiddleware",
    "crosstalk.django_middleware.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as axes asks: it turns a lockout into its answer (accounts.throttle).
    "axes.middleware.AxesMiddleware",
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
                "django.template.context_processors.csp",
                "peers.context_processors.peer_counts",
                "crosstalk.inbox.views.inbox_context",
            ],
        },
    },
]

DATABASES = {"default": env.database(VAR_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
CHANNEL_LAYERS = {"default": env.channel_layer()}

AUTH_USER_MODEL = "accounts.User"
# First: axes refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
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
# An Idempotency-Key whose first request died is answered (or run again) after this long.
IDEMPOTENCY_ABANDONED_SECONDS = env.env_float("IDEMPOTENCY_ABANDONED_SECONDS", 120, minimum=1)
# Tests only: "before_work" or "after_work" blocks a keyed request there, to be killed.
IDEMPOTENCY_TEST_PAUSE_AT = env.env_str("IDEMPOTENCY_TEST_PAUSE_AT", "")

# Longest a hosted agent's turn (a CLI's process) may run before its group is killed.
TURN_TIMEOUT_SECONDS = env.env_float("TURN_TIMEOUT_SECONDS", 1800, minimum=1)
# A hosted CLI waiting this long for its model with no progress (no event, no step
# running) fails its turn as "model unreachable", its process group killed.
TURN_STALL_SECONDS = env.env_float("TURN_STALL_SECONDS", 60, minimum=1)
# Where hosted CLIs reach this server (their MCP server and hooks); per process group.
CROSSTALK_URL = env.env_str("CROSSTALK_URL", f"http://127.0.0.1:{env.env_str('PORT', '8000')}")
# Where the outside reaches this server (its origins' URLs, the Settings page's test
# request): CROSSTALK_PUBLIC_URL, else CROSSTALK_URL; never a request's Host header.
CROSSTALK_PUBLIC_URL = env.env_url("CROSSTALK_PUBLIC_URL")
# Roots of the working folders (`:`-separated): an account's lie inside <root>/<username>/
# (chats.folders). Unset: AGENT_FOLDERS_DEFAULT (var/folders), read when a folder is judged.
AGENT_FOLDERS = env.env_paths("AGENT_FOLDERS")
# Per-chat configuration the runner writes for hosted CLIs (never into the person's repo).
# Checked private at every turn (agents.adapters.setup), never replaced by another folder.
AGENTS_DIR = Path(env.env_str("AGENTS_DIR", str(VAR_DIR / "agents")))

# Login throttling (django-axes): LOGIN_FAILURE_LIMIT failed logins for one username,
# or from one address, lock that username / address out for LOGIN_LOCKOUT_MINUTES; a
# success resets the count. The answer: accounts.throttle.lockout_response.
AXES_FAILURE_LIMIT = int(env.env_float("LOGIN_FAILURE_LIMIT", 5, minimum=1))
AXES_COOLOFF_TIME = timedelta(minutes=env.env_float("LOGIN_LOCKOUT_MINUTES", 15, minimum=0.1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_VERBOSE = False

# A page socket re-checks its session this often (an expired session closes it).
SESSION_RECHECK_SECONDS = env.env_float("SESSION_RECHECK_SECONDS", 60, minimum=0.01)

# The header the reverse proxy puts the client's address in (X-Real-IP with the nginx
# of docs/deploy.md); empty: the address the connection came from. Set it only when
# every request passes through that proxy, which overwrites the header.
PROXY_ADDRESS_HEADER = env.env_str("PROXY_ADDRESS_HEADER", "")

# Sign-up is off (404) unless SIGNUP=1; an admin creates accounts otherwise.
SIGNUP = env.env_bool("SIGNUP", False)
# Sign-ups one address may make per hour (the database counts them: every process agrees).
SIGNUPS_PER_HOUR = int(env.env_float("SIGNUPS_PER_HOUR", 5, minimum=1))

# Any request body larger than this is answered 413 by the server before it is read
# (kernel.bounded); below it, Django's own limits apply as ever (form fields 2.5 MB).
MAX_BODY_BYTES = int(env.env_float("MAX_BODY_BYTES", 10 * 1024 * 1024, minimum=1024))

# Chats started from outside (docs/origins.md). Outside content longer than this is cut
# (with a note saying so); a request body larger than the byte limit is refused.
ORIGIN_MAX_CHARS = int(env.env_float("ORIGIN_MAX_CHARS", 8000, minimum=100))
ORIGIN_MAX_BODY_BYTES = int(env.env_float("ORIGIN_MAX_BODY_BYTES", 1024 * 1024, minimum=1024))
# A signed request's timestamp may be this far from the server's clock.
ORIGIN_SIGNATURE_TOLERANCE_SECONDS = env.env_float("ORIGIN_SIGNATURE_TOLERANCE_SECONDS", 300)
# Accepted deliveries are remembered this long (a replay under a fresh id is refused); a
# GitHub comment older than this is refused as a replay (GitHub redelivers up to 3 days).
ORIGIN_DELIVERY_KEEP_DAYS = env.env_float("ORIGIN_DELIVERY_KEEP_DAYS", 7, minimum=1)
# Answers going back: tries before an answer reads failed, and how often the loop looks.
ORIGIN_REPLY_ATTEMPTS = int(env.env_float("ORIGIN_REPLY_ATTEMPTS", 8, minimum=1))
ORIGIN_REPLY_POLL_SECONDS = env.env_float("ORIGIN_REPLY_POLL_SECONDS", 5, minimum=0.1)
# Answers may go to private and loopback addresses (origins.outbound): off on a shared server.
ORIGIN_PRIVATE_URLS = env.env_bool("ORIGIN_PRIVATE_URLS", False)
# How long an A2A task waits for its chat's turn before it is marked failed.
A2A_WAIT_SECONDS = env.env_float("A2A_WAIT_SECONDS", 1800, minimum=1)

# Headers every page carries. No inline script or style anywhere: the policy forbids them.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    # The nonce only where a page asks for one: the Django admin's change list.
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# HTTPS=1: served over TLS behind a proxy that sets X-Forwarded-Proto (docs/deploy.md).
HTTPS = env.env_bool("HTTPS", False)
if HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(env.env_float("HSTS_SECONDS", 31536000))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.env_bool("HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_SSL_REDIRECT = env.env_bool("SSL_REDIRECT", False)

# `bwrap`: each hosted agent runs under bubblewrap (its folder, its own home, the system
# read-only; no var/, no view of the server's processes). `none`: as the server's user.
AGENT_SANDBOX = env.env_choice("AGENT_SANDBOX", "none", {"none", "bwrap"})
# Variables of the server's a hosted agent gets beyond the allow-list (NAME or PREFIX_*).
AGENT_ENV_PASS = env.env_names("AGENT_ENV_PASS")
# With `bwrap`, the jail reaches outside addresses and, of this machine's loopback, only
# Crosstalk's own port and these `host:port` pairs (a model served on loopback, say).
AGENT_NET_ALLOW = env.env_loopback_ports("AGENT_NET_ALLOW")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"crosstalk": {"level": "INFO"}, "agents": {"level": "INFO"}},
}
