"""The channel layer of servers with REDIS_URL (kernel.env): Redis pub/sub, one
subscription per group per process, fanned out to the process's own channels here.

channels-redis's RedisChannelLayer queues each group message in a sorted set per
process, and a process takes them out one at a time under one lock, four Redis round
trips each (EVAL, BZPOPMIN, ZADD, ZPOPMIN): with two servers, 300 open pages and ~45
sends a second the queues grew to 700 messages and hints came 11-17 s late
(docs/benchmarks.md). Here a group send is one PUBLISH, and a process reads every
hint of every group it listens to off one connection, with no round trip per hint.

What pub/sub does not keep, a hint never needed: a process that is not subscribed
when a hint is published never gets it. So when the connection a process listens on
fails, every receive on that process's channels raises once (the page socket closes
and the page reconnects and resyncs from the database; a waiting call falls back to
re-reading the database; the runner to its backstop), and the next group_add opens
a new connection. Nothing waits on a group that silently stopped hearing."""

import asyncio
import contextlib
import json
import logging
import types
import uuid
import weakref
from collections import defaultdict, deque

from channels.layers import BaseChannelLayer
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

logger = logging.getLogger(__name__)


class LayerConnectionLost(ConnectionError):
    """The connection this process listened on failed; some hints may be lost."""


class RedisHintsLayer(BaseChannelLayer):
    """Groups over Redis pub/sub; channels are queues in this process (one Listener per
    event loop). `hosts` is channels-redis's form, one host: [url] or [{"address": url,
    ...redis-py connection options}]."""

    extensions = ["groups", "flush"]

    def __init__(self, hosts=None, prefix="asgi", capacity=100, expiry=60, **kwargs) -> None:
        super().__init__(expiry=expiry, capacity=capacity, **kwargs)
        hosts = hosts or [{"address": "redis://127.0.0.1:6379/0"}]
        if len(hosts) != 1:
            raise ValueError("RedisHintsLayer takes one Redis host.")
        host = hosts[0]
        self.host = {"address": host} if isinstance(host, str) else dict(host)
        self.prefix = prefix
        self.process = uuid.uuid4().hex
        self.listeners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # Names ----------------------------------------------------------------------

    def group_topic(self, group: str) -> str:
        return f"{self.prefix}:group:{group}"

    def process_topic(self, process: str) -> str:
        return f"{self.prefix}:process:{process}"

    def listener(self) -> "Listener":
        """This event loop's listener (a thread's async_to_sync runs its own loop)."""
        loop = asyncio.get_running_loop()
        listener = self.listeners.get(loop)
        if listener is None:
            listener = self.listeners[loop] = Listener(self)
            close_with_loop(loop, listener)
        return listener

    def connect(self, **overrides) -> aioredis.Redis:
        host = {**self.host, **overrides}
        address = host.pop("address")
        return aioredis.Redis(connection_pool=aioredis.ConnectionPool.from_url(address, **host))

    # The channel layer API ------------------------------------------------------

    async def new_channel(self, prefix: str = "specific") -> str:
        return f"{prefix}.{self.process}!{uuid.uuid4().hex}"

    async def send(self, channel: str, message: dict) -> None:
        """A channel of this process gets the message at once; another process's, once
        that process listens to any group (each page, wait and runner here does)."""
        self.require_valid_channel_name(channel)  # raises TypeError on a bad name
        owner = channel.partition("!")[0].rpartition(".")[2]
        listener = self.listener()
        if owner == self.process:
            listener.deliver(channel, message)
            return
        await listener.publish(self.process_topic(owner), {"channel": channel, "message": message})

    async def receive(self, channel: str) -> dict:
        self.require_valid_channel_name(channel)
        return await self.listener().receive(channel)

    async def group_add(self, group: str, channel: str) -> None:
        """Returns once Redis confirmed the subscription: a hint published after this
        reaches `channel`. Raises if Redis is away."""
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        await self.listener().join(self.group_topic(group), channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        await self.listener().leave(self.group_topic(group), channel)

    async def group_send(self, group: str, message: dict) -> None:
        self.require_valid_group_name(group)
        await self.listener().publish(self.group_topic(group), message)

    async def flush(self) -> None:
        listener = self.listeners.pop(asyncio.get_running_loop(), None)
        if listener is not None:
            await listener.close()


class Listener:
    """One event loop's side of the layer: its channels' queues, which of them are in
    which group, one pub/sub connection subscribed to each of those groups once, and
    one client to publish with."""

    def __init__(self, layer: RedisHintsLayer) -> None:
        self.layer = layer
        self.queues: dict[str, asyncio.Queue] = {}
        self.members: dict[str, set[str]] = {}  # topic → this loop's channels in it
        self.topics_of: dict[str, set[str]] = defaultdict(set)  # channel → its topics
        self.subscribed: dict[str, asyncio.Future] = {}  # topic → confirmed when Redis said so
        self.confirmations: dict[str, deque[asyncio.Future]] = defaultdict(deque)
        self.pubsub = None
        self.reader: asyncio.Task | None = None
        self.writing = asyncio.Lock()  # (un)subscribes reach Redis in the order made
        self.publisher: aioredis.Redis | None = None

    # Channels -------------------------------------------------------------------

    def queue(self, channel: str) -> asyncio.Queue:
        queue = self.queues.get(channel)
        if queue is None:
            queue = self.queues[channel] = asyncio.Queue(self.layer.get_capacity(channel))
        return queue

    def deliver(self, channel: str, message) -> None:
        queue = self.queue(channel)
        if queue.full():  # a channel that stopped reading: it misses its oldest hint
            queue.get_nowait()
        queue.put_nowait(message)

    async def receive(self, channel: str) -> dict:
        try:
            message = await self.queue(channel).get()
        except asyncio.CancelledError:
            self.drop_if_idle(channel)  # a socket refused before it joined a group
            raise
        if isinstance(message, LayerConnectionLost):
            self.drop_if_idle(channel)
            raise message
        return message

    def drop_if_idle(self, channel: str) -> None:
        if not self.topics_of.get(channel):
            self.topics_of.pop(channel, None)
            self.queues.pop(channel, None)

    # Groups ---------------------------------------------------------------------

    async def join(self, topic: str, channel: str) -> None:
        self.queue(channel)
        async with self.writing:
            confirmed = self.subscribed.get(topic)
            if confirmed is None:
                confirmed = await self.subscribe(topic)
            self.members.setdefault(topic, set()).add(channel)
            self.topics_of[channel].add(topic)
        try:
            await asyncio.shield(confirmed)
        except BaseException:
            self.forget(topic, channel)
            raise

    async def leave(self, topic: str, channel: str) -> None:
        self.forget(topic, channel)
        self.drop_if_idle(channel)
        if topic in self.members or topic not in self.subscribed:
            return
        async with self.writing:
            if topic not in self.members and self.subscribed.pop(topic, None) is not None:
                with contextlib.suppress(Exception):  # a lost connection unsubscribes anyway
                    await self.pubsub.unsubscribe(topic)

    def forget(self, topic: str, channel: str) -> None:
        members = self.members.get(topic)
        if members is not None:
            members.discard(channel)
            if not members:
                del self.members[topic]
        self.topics_of.get(channel, set()).discard(topic)

    async def subscribe(self, topic: str) -> asyncio.Future:
        """SUBSCRIBE (holding `writing`), opening the connection first if there is none;
        the future is confirmed by the reader when Redis answers, in order."""
        if self.pubsub is None:
            await self.open()
        confirmed = asyncio.get_running_loop().create_future()
        self.confirmations[topic].append(confirmed)
        self.subscribed[topic] = confirmed
        try:
            await self.pubsub.subscribe(topic)
        except BaseException as error:
            self.subscribed.pop(topic, None)
            self.lost(LayerConnectionLost(f"Could not subscribe: {error}"))
            raise
        return confirmed

    async def open(self) -> None:
        # No retries: a connection that failed must tell its channels (see the module).
        client = self.layer.connect(retry=Retry(NoBackoff(), 0))
        self.pubsub = client.pubsub()
        own_topic = self.layer.process_topic(self.layer.process)
        confirmed = asyncio.get_running_loop().create_future()
        self.confirmations[own_topic].append(confirmed)
        try:
            await self.pubsub.subscribe(own_topic)
        except BaseException:
            pubsub, self.pubsub = self.pubsub, None
            self.confirmations.clear()
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        self.reader = asyncio.create_task(self.read(self.pubsub), name="hints-reader")

    async def read(self, pubsub) -> None:
        try:
            while True:
                message = await pubsub.get_message(timeout=None)
                if message is not None:
                    self.dispatch(message)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if pubsub is self.pubsub:
                logger.warning("The hints connection to Redis failed: %s", error)
                self.lost(LayerConnectionLost(f"The hints connection to Redis failed: {error}"))

    def dispatch(self, message: dict) -> None:
        topic = message["channel"].decode()
        if message["type"] == "subscribe":
            pending = self.confirmations.get(topic)
            if pending:
                future = pending.popleft()
                if not future.done():
                    future.set_result(None)
            return
        if message["type"] != "message":
            return
        try:
            payload = json.loads(message["data"])
        except ValueError:
            logger.warning("A hint on %s was not JSON; dropped.", topic)
            return
        if topic == self.layer.process_topic(self.layer.process):
            self.deliver(payload["channel"], payload["message"])
            return
        for channel in self.members.get(topic, ()):
            self.deliver(channel, dict(payload))  # each its own copy, as other layers do

    def lost(self, error: LayerConnectionLost) -> None:
        """The connection failed: every channel hears it once, every group is left, and
        the next join opens a new connection."""
        pubsub, self.pubsub = self.pubsub, None
        for pending in self.confirmations.values():
            for future in pending:
                if not future.done():
                    future.set_exception(error)
                    future.exception()  # retrieved here: a join that gave up never awaits it
        self.confirmations.clear()
        self.subscribed.clear()
        self.members.clear()
        self.topics_of.clear()
        for queue in self.queues.values():
            while not queue.empty():
                queue.get_nowait()
            queue.put_nowait(error)
        if pubsub is not None:
            asyncio.get_running_loop().create_task(close_quietly(pubsub))

    # Sending --------------------------------------------------------------------

    async def publish(self, topic: str, message: dict) -> None:
        if self.publisher is None:
            self.publisher = self.layer.connect()
        await self.publisher.publish(topic, json.dumps(message, separators=(",", ":")))

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        pubsub, self.pubsub = self.pubsub, None
        if pubsub is not None:
            await close_quietly(pubsub)
        publisher, self.publisher = self.publisher, None
        if publisher is not None:
            with contextlib.suppress(Exception):
                await publisher.aclose(close_connection_pool=True)


async def close_quietly(pubsub) -> None:
    with contextlib.suppress(Exception):
        await pubsub.aclose()
    with contextlib.suppress(Exception):
        await pubsub.connection_pool.disconnect()


def close_with_loop(loop: asyncio.AbstractEventLoop, listener: Listener) -> None:
    """A loop that closes (async_to_sync's, a test's) closes its listener's connections
    first, as channels-redis does for its pools."""
    original = loop.close

    def close(self, *args, **kwargs):
        self.close = original
        if not self.is_running() and not self.is_closed():
            with contextlib.suppress(Exception):
                self.run_until_complete(listener.close())
        return original(*args, **kwargs)

    loop.close = types.MethodType(close, loop)
