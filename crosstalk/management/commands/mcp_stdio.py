"""python manage.py mcp_stdio: MCP over stdio for a session started by hand."""

import asyncio
import os

from django.core.management.base import BaseCommand, CommandError

from chats.api import caller_for_secret
from crosstalk.mcp import stdio


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = (
        "Serve Crosstalk's MCP tools over stdio. The credential is CROSSTALK_KEY (a chat's "
        "agent key or a personal API token); with CROSSTALK_URL set, every call is relayed "
        "to that server's /mcp, otherwise the tools run against the local database."
    )

    def handle(self, *args, **options) -> None:
        secret = os.environ.get("CROSSTALK_KEY", "").strip()
        if not secret:
            raise CommandError("Set CROSSTALK_KEY to a chat's agent key or a personal API token.")
        url = os.environ.get("CROSSTALK_URL", "").strip()
        if url:
            asyncio.run(stdio.serve_relay(url, secret))
            return
        if caller_for_secret(secret) is None:
            raise CommandError("CROSSTALK_KEY is neither a chat's agent key nor an API token.")
        asyncio.run(stdio.serve_local(secret))
