"""Stage presence read from the KV bucket against a real NATS server: counts, and no consumer per read."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from duocthu_runtime import Bus, RuntimeSettings
from duocthu_runtime.bus.presence import PRESENCE_BUCKET
from duocthu_runtime.devstack import NatsServer


async def _connected(server: NatsServer, name: str) -> Bus:
    bus = Bus(RuntimeSettings(nats_url=server.url), client_name=name)
    await bus.connect()
    return bus


async def test_live_stages_counts_ready_replicas_and_skips_removed_ones(fresh_nats: NatsServer) -> None:
    bus = await _connected(fresh_nats, "presence-test")
    try:
        assert await bus.live_stages() == {}, "an empty bucket: no stage"
        await bus.announce("retrieval", "r-1", True)
        await bus.announce("retrieval", "r-2", True)
        await bus.announce("generation", "g-1", True)
        await bus.announce("verifier", "v-1", False)
        await bus.announce("understanding", "u-1", True)
        kv = await bus.presence()
        await kv.delete("understanding.u-1")
        assert await bus.live_stages() == {"retrieval": 2, "generation": 1}
    finally:
        await bus.stop()


async def test_reading_presence_opens_no_consumer_and_stays_exact_on_a_busy_loop(fresh_nats: NatsServer) -> None:
    """A gateway reads presence every second: the read is one stream-info request, not a consumer per read
    (``kv.keys()`` created an ordered push consumer each time; a loaded run once read no stage at all)."""
    bus = await _connected(fresh_nats, "presence-reader")
    observer = await _connected(fresh_nats, "api-observer")
    consumer_requests: list[str] = []

    async def on_api(msg: Any) -> None:
        consumer_requests.append(msg.subject)

    await observer.broker.connection.subscribe(f"$JS.API.CONSUMER.*.KV_{PRESENCE_BUCKET}.>", cb=on_api)
    await observer.broker.connection.subscribe(f"$JS.API.CONSUMER.*.KV_{PRESENCE_BUCKET}", cb=on_api)
    stop = asyncio.Event()

    async def hog() -> None:  # blocking slices, as a loaded gateway's event loop has
        while not stop.is_set():
            time.sleep(0.003)  # noqa: ASYNC251 - the point: a slice that blocks the loop
            await asyncio.sleep(0)

    try:
        stages = ("understanding", "retrieval", "generation", "verifier", "ingest-worker")
        hogs = [asyncio.create_task(hog()) for _ in range(2)]
        reads = []
        for _ in range(20):  # renewed before each read, as the stages do, so none expires while the loop is slow
            for number, stage in enumerate(stages):
                await bus.announce(stage, f"{stage}-{number}", True)
            reads.append(await bus.live_stages())
        stop.set()
        await asyncio.gather(*hogs)
        await observer.broker.connection.flush()
        assert all(read == dict.fromkeys(stages, 1) for read in reads), [r for r in reads if len(r) != 5][:3]
        assert consumer_requests == []
    finally:
        await observer.stop()
        await bus.stop()
