"""Crosstalk's MCP server, assembled at the top: the HTTP face at /mcp, the stdio face
(`manage.py mcp_stdio`) and the toolbox, from peers' tools (peers.mcp) and the chat
tools that may start work in origins (chat_tools). docs/mcp.md."""
