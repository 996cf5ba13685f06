"""http → /mcp (the MCP server) or Django; websocket → the page consumers. Background services (the
in-process turn runner) start with the first connection, since Daphne sends
no lifespan events; `manage.py serve` starts them at boot as well."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
django_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from agents.services import EXTRA_SERVICES, BackgroundServices  # noqa: E402
from chats.routing import websocket_urlpatterns  # noqa: E402
from peers.mcp.http import McpRouter, run_mcp_session_manager  # noqa: E402

if run_mcp_session_manager not in EXTRA_SERVICES:
    EXTRA_SERVICES.append(run_mcp_session_manager)

application = BackgroundServices(
    ProtocolTypeRouter(
        {
            "http": McpRouter(django_app),
            "websocket": AllowedHostsOriginValidator(
                AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)
