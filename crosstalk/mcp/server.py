"""The MCP server itself (the SDK's low-level Server): tools/list and tools/call,
answered per credential. Over HTTP the secret rides each request (its scope); over
stdio it is the one the process was started with."""

import mcp_types as types
from asgiref.sync import sync_to_async
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from chats.api import Caller
from chats.models import Chat
from chats.selectors import listed_chats
from chats.serializers import chat_json
from crosstalk.mcp import chat_tools, inbox_tools, lifecycle_tools
from origins import mcp_tools as origin_tools
from peers.mcp import agent_tools, person_tools, text
from peers.mcp.registry import Toolbox
from peers.selectors import offered_chats

SERVER_NAME = "crosstalk"
BEARER_IN_SCOPE = "crosstalk.bearer"  # where the HTTP face leaves the request's bearer secret
MOST_LISTED = 30  # chats named in a description


def reach_line(chat: Chat, *, with_switch: bool) -> str:
    line = f"- {chat.name} ({text.where(chat_json(chat))})"
    return line + (", agent-to-agent off" if with_switch and not chat.peers else "")


def describe_reach(caller: Caller) -> str:
    """Real ids for the model to pick from: what this credential can reach right now."""
    if caller.chat is not None:
        chats = offered_chats(caller.chat)[:MOST_LISTED]
        head = "Chats you can reach now:" if chats else "No other chat is within reach right now."
    else:
        chats = list(listed_chats(caller.user)[:MOST_LISTED])
        head = "Your chats:" if chats else "You have no chats yet."
    with_switch = caller.chat is None
    return "\n".join([head, *(reach_line(chat, with_switch=with_switch) for chat in chats)])


PERSON_TOOLS = [
    *person_tools.TOOLS,
    *chat_tools.TOOLS,
    *lifecycle_tools.TOOLS,
    *inbox_tools.TOOLS,
    *origin_tools.TOOLS,
]
TOOLBOX = Toolbox(agent_tools.TOOLS, PERSON_TOOLS, describe_reach)


def request_secret(ctx: ServerRequestContext, fallback: str) -> str:
    request = ctx.request
    if request is None or not hasattr(request, "scope"):
        return fallback
    return request.scope.get(BEARER_IN_SCOPE, "")


def build_server(secret: str = "") -> Server:
    """`secret` is the stdio credential; over HTTP each request brings its own."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        tools = await sync_to_async(TOOLBOX.listed)(request_secret(ctx, secret))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await TOOLBOX.call(request_secret(ctx, secret), params.name, params.arguments)

    return Server(
        SERVER_NAME,
        instructions="Crosstalk: find, read and message the other agent chats of your person.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
