"""A second retrieval replica on the embedded index waits as the owner's warm standby and takes the index over
when the owner goes (the fault-injection run's retrieval kill: the turn waits for the ack wait, not a re-import)."""

from __future__ import annotations

import asyncio

from duocthu_retrieval.main import RetrievalReplica
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime import Bus
from duocthu_runtime.devstack import NatsServer
from tests.index.harness import running_retrieval


async def test_a_second_replica_waits_for_the_index_and_takes_it_over(index_settings: RetrievalSettings,
                                                                       fresh_nats: NatsServer) -> None:
    settings = index_settings.model_copy(update={"nats_url": fresh_nats.url, "bus_fetch_timeout_s": 0.5})
    standby = RetrievalReplica(settings)
    bus = Bus(settings, client_name="standby")
    await bus.connect()
    try:
        async with running_retrieval(settings) as (runtime, owner):
            assert owner.index is not None and runtime.started
            takeover = asyncio.create_task(standby.start(bus))
            await asyncio.sleep(1.0)
            assert not takeover.done(), "the standby opened an index another replica holds"
        await asyncio.wait_for(takeover, timeout=5)  # the owner stopped: its lock is free
        assert standby.index is not None
        assert (await standby.live_index())[1] != "index not open"
    finally:
        await standby.stop()
        await bus.stop()
