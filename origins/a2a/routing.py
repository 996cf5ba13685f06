"""/a2a/… in front of Django. The A2A side (origins.a2a.asgi, with the SDK) is
loaded on the first such request, so a server no origin calls never imports it."""

import re

from kernel.lazy import load

PREFIX = "/a2a/"
ROUTE = re.compile(r"^/a2a/(?P<origin>[A-Za-z0-9_-]{1,64})(?P<rest>/.*)?$")


class A2ARouter:
    """Sends /a2a/… to the A2A face and everything else to `inner`."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        match = ROUTE.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None:
            return await self.inner(scope, receive, send)
        endpoint = await load("origins.a2a.asgi")
        await endpoint.serve_a2a(scope, receive, send, match)
