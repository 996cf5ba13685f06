"""A one-tool stdio MCP server (`echo`) for checking that `[[call]]` reaches a CLI's
MCP tools. Run as a script: `python echo_mcp.py`."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("crosstalk-echo")


@server.tool()
def echo(text: str) -> str:
    """Answer the text back, prefixed with ECHO."""
    return f"ECHO: {text}"


if __name__ == "__main__":
    server.run("stdio")
