"""Crosstalk's MCP tools: the agent tools (a chat's agent key) and the person's tools
(an API token). The server that serves them over streamable HTTP at /mcp and over stdio
(mcp_stdio) is assembled at the top, crosstalk.mcp, with the chat tools that may start
work in origins.

A thin face (docs/rules.md): it parses with the REST input models, calls the same
check_* functions and answers with the same JSON as structured content, plus plain
text for the model. See docs/mcp.md."""
