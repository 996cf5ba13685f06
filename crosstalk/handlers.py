"""Django's ASGI handler, each request's sync work on a thread lent from a pool.

Django gives every request a worker thread of its own (asgiref's ThreadSensitiveContext):
started for the request and joined after it, and with the thread a new database
connection. Here a request borrows an idle thread instead and gives it back once all
it sent there has run, so threads, and the connections Django keeps in them
(kernel.env), outlive the request, as they already do for the MCP server's tool
calls. A request still has one thread to itself while it runs: its sync code runs in
that thread, in order, as Django expects."""

import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.core.handlers.asgi import ASGIHandler

KEEP_IDLE = 16  # threads kept for the next requests; more at once are made and let go


class RequestThreads:
    """Single-thread executors, one lent to each request, kept (up to `keep`) when idle."""

    def __init__(self, keep: int = KEEP_IDLE) -> None:
        self.keep = keep
        self.idle: list[ThreadPoolExecutor] = []
        self.lock = threading.Lock()

    def lend(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.idle:
                return self.idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        """Taken back once everything queued on it has run: a request whose client went
        away can leave its sync call running there, and the next must not wait for it."""
        executor.submit(int).add_done_callback(lambda _: self.keep_or_stop(executor))

    def keep_or_stop(self, executor: ThreadPoolExecutor) -> None:
        with self.lock:
            if len(self.idle) < self.keep:
                self.idle.append(executor)
                return
        executor.shutdown(wait=False)  # its own thread runs this: no join


class PooledThreadsASGIHandler(ASGIHandler):
    def __init__(self, threads: RequestThreads | None = None) -> None:
        super().__init__()
        self.threads = threads or RequestThreads()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.threads.lend()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)
