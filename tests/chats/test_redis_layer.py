"""The Redis channel layer (kernel.redis_layer), on a private redis-server: two layer
objects stand for two web processes (each its own process id and connections). A hint
reaches every page of its account in both, each with its own copy, and never another
account's; a process subscribes once per group; a lost connection is never silent."""

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from kernel.redis_layer import LayerConnectionLost, RedisHintsLayer

HINT = {"type": "account.event", "kind": "message", "chat": "c1"}
QUICK = 5  # seconds: a hint that is coming comes long before this


@pytest.fixture
async def processes(redis_server):
    """Two web processes' layers on one Redis, as bin/run-all starts them."""
    layers = [RedisHintsLayer(hosts=[redis_server.url], prefix="test") for _ in range(2)]
    yield layers
    for layer in layers:
        await layer.flush()


async def pages(layer: RedisHintsLayer, group: str, count: int) -> list[str]:
    channels = [await layer.new_channel() for _ in range(count)]
    for channel in channels:
        await layer.group_add(group, channel)
    return channels


async def next_hint(layer: RedisHintsLayer, channel: str) -> dict:
    return await asyncio.wait_for(layer.receive(channel), QUICK)


async def subscribers(redis_server, group: str) -> int:
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        [(_, count)] = await client.pubsub_numsub(f"test:group:{group}")
        return count
    finally:
        await client.aclose()


async def test_it_a_hint_reaches_every_page_of_the_account_in_both_processes(processes):
    first, second = processes
    mine = [(first, c) for c in await pages(first, "account-1", 3)]
    mine += [(second, c) for c in await pages(second, "account-1", 2)]
    theirs = [(first, c) for c in await pages(first, "account-2", 2)]
    theirs += [(second, c) for c in await pages(second, "account-2", 1)]

    await second.group_send("account-1", HINT)
    await first.group_send("account-2", {**HINT, "chat": "theirs"})

    assert [await next_hint(layer, c) for layer, c in mine] == [HINT] * 5
    # Hints reach a process in the order sent: had account-1's reached another
    # account's page, it would be read here before account-2's own.
    assert [(await next_hint(layer, c))["chat"] for layer, c in theirs] == ["theirs"] * 3


async def test_it_each_page_gets_its_own_copy(processes):
    first, _ = processes
    channels = await pages(first, "account-1", 2)
    await first.group_send("account-1", HINT)
    one, two = [await next_hint(first, c) for c in channels]
    one["kind"] = "changed"
    assert two == HINT


async def test_it_a_process_subscribes_once_per_group_and_leaves_with_its_last_page(
    processes, redis_server
):
    first, second = processes
    leaving = await pages(first, "account-1", 5)
    staying = await pages(second, "account-1", 1)
    assert await subscribers(redis_server, "account-1") == 2

    for channel in leaving[:4]:
        await first.group_discard("account-1", channel)
    assert await subscribers(redis_server, "account-1") == 2
    await first.group_discard("account-1", leaving[4])
    assert await subscribers(redis_server, "account-1") == 1

    await first.group_send("account-1", HINT)
    assert await next_hint(second, staying[0]) == HINT
    assert first.listener().queues == {}  # the pages that left keep nothing behind


async def test_it_a_direct_send_reaches_a_channel_of_the_other_process(processes):
    first, second = processes
    [channel] = await pages(first, "account-1", 1)
    await second.send(channel, {"type": "turns.requested"})
    assert await next_hint(first, channel) == {"type": "turns.requested"}


async def test_it_a_lost_connection_ends_every_receive_once_and_the_layer_recovers(
    processes, redis_server
):
    first, _ = processes
    channels = await pages(first, "account-1", 3)
    redis_server.stop()
    for channel in channels:
        with pytest.raises(LayerConnectionLost):
            await next_hint(first, channel)
    with pytest.raises(RedisConnectionError):  # while Redis is away, a page is refused
        await first.group_add("account-1", await first.new_channel())

    redis_server.start()
    back = await pages(first, "account-1", 1)
    await first.group_send("account-1", HINT)
    assert await next_hint(first, back[0]) == HINT


async def test_it_a_socket_refused_before_joining_keeps_nothing_behind(processes):
    first, _ = processes
    channel = await first.new_channel()
    receiving = asyncio.create_task(first.receive(channel))
    await asyncio.sleep(0)  # the receive is waiting, as a consumer's is from its start
    assert channel in first.listener().queues
    receiving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await receiving
    assert first.listener().queues == {}
