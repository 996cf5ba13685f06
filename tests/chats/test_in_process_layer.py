"""The in-process channel layer (no REDIS_URL): a group send reaches every page, each
with its own copy, and a page that stops reading still leaves its groups once its
hints expire, though the layer sweeps at most once a second."""

import time

import time_machine

from kernel.layers import InProcessLayer


async def test_it_a_group_send_reaches_every_member_with_its_own_copy():
    layer = InProcessLayer()
    for channel in ("page-1", "page-2", "page-3"):
        await layer.group_add("account-1", channel)
    await layer.group_add("account-2", "other-page")
    hint = {"type": "account.event", "kind": "message", "chat": "c1"}
    await layer.group_send("account-1", hint)
    received = [await layer.receive(channel) for channel in ("page-1", "page-2", "page-3")]
    assert received == [hint, hint, hint]
    received[0]["kind"] = "changed"
    assert received[1]["kind"] == "message"
    assert "other-page" not in layer.channels


async def test_it_a_page_that_stops_reading_leaves_its_group_once_its_hints_expire():
    layer = InProcessLayer(expiry=60)
    await layer.group_add("account-1", "reading")
    await layer.group_add("account-1", "stuck")
    with time_machine.travel(time.time(), tick=False) as clock:
        await layer.group_send("account-1", {"type": "account.event", "n": 1})
        assert (await layer.receive("reading"))["n"] == 1
        clock.shift(61)
        await layer.group_send("account-1", {"type": "account.event", "n": 2})
    assert set(layer.groups["account-1"]) == {"reading"}
    assert (await layer.receive("reading"))["n"] == 2
    assert "stuck" not in layer.channels
