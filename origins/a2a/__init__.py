"""Crosstalk as an A2A server: each A2A origin is an agent with its own card and JSON-RPC
endpoint under /a2a/<origin id>/, answered by the official a2a-sdk. A message starts or
continues the origin's chat for its contextId; the chat's turn is the task."""
