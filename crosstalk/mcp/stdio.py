"""MCP over stdio (`manage.py mcp_stdio`): the same tools against the local
database, or a relay to a running server's /mcp (CROSSTALK_URL)."""

import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.stdio import stdio_server

from crosstalk.mcp.server import SERVER_NAME, build_server

# A MessageChat may wait up to the longest wait (45 s by default) inside one call.
RELAY_READ_SECONDS = 300


async def serve(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_local(secret: str) -> None:
    await serve(build_server(secret))


def mcp_url(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/mcp") else f"{base}/mcp"


async def serve_relay(base_url: str, secret: str) -> None:
    """Every list and call goes to the server as it comes: the server decides per call."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {secret}"},
        timeout=httpx2.Timeout(30, read=RELAY_READ_SECONDS),
    )
    async with http, Client(streamable_http_client(mcp_url(base_url), http_client=http)) as remote:

        async def list_tools(ctx, params) -> types.ListToolsResult:
            return await remote.list_tools(cache_mode="bypass")

        async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
            return await remote.call_tool(params.name, params.arguments)

        await serve(Server(SERVER_NAME, on_list_tools=list_tools, on_call_tool=call_tool))
