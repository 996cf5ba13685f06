"""The person's inbox: everything that waits for them across chats, newest first, with
"done" kept on the server per account (crosstalk.models.InboxDone).

- kinds: the registry of item kinds, one entry each (add a kind there, nothing else)
- selectors: the items of an account, a page of them, and the count the top bar shows
- actions: mark items done
- api, views: the REST routes and the /inbox/ page (MCP: crosstalk.mcp.inbox_tools)

It lives at the top because its kinds come from three apps: peers (messages), chats
(failed turns) and origins (outside answers that failed)."""
