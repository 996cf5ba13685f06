"""http → Django; websocket → the page consumers. Background services (the
in-process turn runner) start with the first connection, since Daphne sends
no lifespan events; `manage.py serve` starts them at boot as well."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
django_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from agents.services import BackgroundServices  # noqa: E402
from chats.routing import websocket_urlpatterns  # noqa: E402

application = BackgroundServices(
    ProtocolTypeRouter(
        {
            "http": django_app,
            "websocket": AllowedHostsOriginValidator(
                AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)
