"""Websockets open only from the page's own origin: the Origin header's scheme, host and
port must equal the socket request's own (its Host header and scheme), or one of
CSRF_TRUSTED_ORIGINS; the Host must be one of ALLOWED_HOSTS."""

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalized(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin, the default port filled in; None if malformed."""
    try:
        url = urlsplit(origin.strip())
        port = url.port
    except ValueError:
        return None
    if url.scheme not in DEFAULT_PORTS or not url.hostname or url.path not in ("", "/"):
        return None
    return url.scheme, url.hostname.lower(), port or DEFAULT_PORTS[url.scheme]


def request_scheme(scope, headers: dict[bytes, bytes]) -> str:
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        if headers.get(name, b"").decode("latin-1").strip() == proxy[1]:
            return "https"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def origin_allowed(scope) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = normalized(headers.get(b"origin", b"").decode("latin-1"))
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    if origin is None or not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    own = normalized(f"{request_scheme(scope, headers)}://{host}")
    trusted = {normalized(item) for item in settings.CSRF_TRUSTED_ORIGINS}
    return origin == own or origin in trusted


class ExactOriginValidator:
    """ASGI middleware: a websocket from any other origin is refused at the handshake."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
