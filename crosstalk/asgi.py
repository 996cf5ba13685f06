"""http → /a2a/… (the A2A server), /mcp (the MCP server) or Django; websocket → the page
consumers; all inside ServerProcess, which starts this process's background services once
(crosstalk.services)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
django_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from chats.routing import websocket_urlpatterns  # noqa: E402
from crosstalk.origins import ExactOriginValidator  # noqa: E402
from crosstalk.services import ServerProcess  # noqa: E402
from origins.a2a.asgi import A2ARouter  # noqa: E402
from peers.mcp.http import McpRouter  # noqa: E402

application = ServerProcess(
    ProtocolTypeRouter(
        {
            "http": A2ARouter(McpRouter(django_app)),
            "websocket": ExactOriginValidator(
                AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)
