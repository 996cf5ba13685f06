import gc
import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kernel import listen

DEFAULT_PORT = 8000


def freeze_startup_objects() -> None:
    """What the server loaded to start (Django, the apps, Twisted, their modules) lives as
    long as the process: kept out of the collector's full passes, which otherwise walk
    all of it (~200,000 objects: 23-153 ms measured, every request stopped meanwhile)."""
    gc.collect()
    gc.freeze()


def port_from_env() -> int:
    raw = os.environ.get("PORT", "").strip()
    if not raw:
        return DEFAULT_PORT
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise CommandError(f"PORT must be a port number (1-65535), not {raw!r}.")
    return int(raw)


def connect_host(shown: str) -> str:
    """The host a client on this machine connects to (not a wildcard address)."""
    return {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}.get(shown, shown)  # noqa: S104


class Command(BaseCommand):
    listen_file = None

    help = (
        "Serve Crosstalk (pages, API, websockets, static files) with Daphne. Turns run "
        "inside this process unless --no-runner (then run `manage.py run_turns`)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="Address to listen on.")
        parser.add_argument("--port", type=int, help="Port to listen on (default: $PORT or 8000).")
        parser.add_argument(
            "--no-runner",
            action="store_true",
            help="Run no turns in this process; turn workers (run_turns) do.",
        )

    def handle(self, *args, host: str, port: int | None, no_runner: bool, **options) -> None:
        port = port or port_from_env()
        runner = False if no_runner else settings.TURNS_IN_PROCESS
        server = self.build_server(host, port, runner=runner)
        try:
            server.run()
        finally:
            listen.forget(self.listen_file)
        if server.abort_start:
            raise CommandError(f"Could not listen on {host}:{port} (is it in use?).")

    def build_server(self, host: str, port: int, *, runner: bool):
        # daphne.server installs Twisted's asyncio reactor when imported, so it comes
        # before anything that imports Twisted (bounded). Only this command pays for
        # Twisted: daphne is not an installed app, so other commands (mcp_stdio,
        # run_turns, migrate) start without it.
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        from crosstalk.asgi import application
        from kernel import bounded

        # Bodies past MAX_BODY_BYTES are answered 413 unread; Twisted parses none.
        bounded.install()

        return Server(
            # Static files are served here too, so one command runs everything.
            application=ASGIStaticFilesHandler(application),
            endpoints=build_endpoint_description_strings(host=host, port=port),
            ready_callable=lambda: self.ready(application, host, port, runner=runner),
            verbosity=0,
            # Behind a proxy that sets it (docs/deploy.md): the client's own address, for
            # login lockouts and sign-up limits, instead of the proxy's.
            proxy_forwarded_address_header=settings.PROXY_ADDRESS_HEADER or None,
        )

    def ready(self, application, host: str, port: int, *, runner: bool) -> None:
        application.start(runner=runner)
        freeze_startup_objects()
        shown = f"[{host}]" if ":" in host else host
        # Where agent_config finds this server (its URL, while it runs).
        self.listen_file = listen.record(f"http://{connect_host(shown)}:{port}")
        self.stdout.write(f"Crosstalk is running at http://{shown}:{port}/ — log in as demo / demo")
        self.stdout.flush()
