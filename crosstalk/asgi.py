"""http → /a2a/… (the A2A server), /mcp (the MCP server) or Django (its requests' sync
work on pooled threads: crosstalk.handlers); websocket → the page consumers; all inside
ServerProcess, which starts this process's background services once (crosstalk.services)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from crosstalk.handlers import PooledThreadsASGIHandler  # noqa: E402

django_app = PooledThreadsASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from chats.routing import websocket_urlpatterns  # noqa: E402
from crosstalk.mcp.http import McpRouter  # noqa: E402
from crosstalk.origins import ExactOriginValidator  # noqa: E402
from crosstalk.services import ServerProcess  # noqa: E402
from origins.a2a.routing import A2ARouter  # noqa: E402

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
