"""The SDK's side of /mcp (crosstalk.mcp.http loads it on the first request): the
session manager, and whom a session belongs to."""

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from chats.api import Caller
from crosstalk.mcp.server import BEARER_IN_SCOPE, build_server

__all__ = ["BEARER_IN_SCOPE", "new_manager", "principal"]


def new_manager(*, max_body: int) -> StreamableHTTPSessionManager:
    return StreamableHTTPSessionManager(app=build_server(), max_request_body_size=max_body)


def principal(caller: Caller) -> AuthenticatedUser:
    """Who owns a session: a session is served only to the credential that opened it."""
    who = f"chat:{caller.chat.pk}" if caller.chat is not None else f"user:{caller.user.pk}"
    return AuthenticatedUser(AccessToken(token="", client_id=who, scopes=[]))  # noqa: S106
