"""The in-process channel layer of a server without REDIS_URL (kernel.env)."""

import contextlib
import time

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer


class InProcessLayer(InMemoryChannelLayer):
    """channels' in-memory layer, cheaper per push with many pages open.

    Its own looks through every channel and every group membership for expired
    messages on each send and each receive: with 1,000 open pages that was a third of
    the event loop (docs/benchmarks.md). Here that sweep runs at most once a second;
    messages still expire after `expiry` (60 s), give or take that second. A group
    send also puts each copy straight on its queue, without a task per member."""

    SWEEP_EVERY_SECONDS = 1.0
    swept_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.time()  # channels dates its messages with time.time() too
        if now - self.swept_at >= self.SWEEP_EVERY_SECONDS:
            self.swept_at = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict) -> None:
        if not isinstance(message, dict):
            raise TypeError("Message is not a dict")
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):  # a full page misses a hint, as before
                await self.send(channel, message)
