"""The gateway's readiness against a real NATS server: what fails it, what only is reported, a failover waited out.

Issue 21's cluster work made ``/readyz`` fail only on what a turn needs (the turn stream, a ready replica of
every stage) and report the rest; a stream the server says is missing still fails it, and presence that
cannot be read stands on the last reading. The timing side (a stream electing a leader) is the cluster test's.
"""

from __future__ import annotations

import asyncio
import time

from duocthu_contracts import subjects as s
from duocthu_gateway.adapters.readiness import BusReadiness
from duocthu_runtime import Bus, RuntimeSettings
from duocthu_runtime.bus.presence import PRESENCE_BUCKET
from duocthu_runtime.devstack import NatsServer

STAGES = ("understanding", "retrieval")


async def _ready_bus(server: NatsServer) -> Bus:
    bus = Bus(RuntimeSettings(nats_url=server.url), client_name="readiness-test")
    await bus.connect()
    for stage in STAGES:
        await bus.announce(stage, f"{stage}-1", True)
    return bus


async def test_a_missing_stream_fails_readiness_even_one_a_turn_does_not_need(fresh_nats: NatsServer) -> None:
    bus = await _ready_bus(fresh_nats)
    try:
        readiness = BusReadiness(bus, STAGES)
        ok, report = await readiness.check()
        assert ok, report
        assert report[f"stream:{s.AUDIT_STREAM}"] == report[f"stream:{s.CORPUS_STREAM}"] == "present"
        await bus.js.delete_stream(s.CORPUS_STREAM)  # what a restarted server without its store would show
        ok, report = await readiness.check()
        assert not ok
        assert report[f"stream:{s.CORPUS_STREAM}"] == "missing", report
    finally:
        await bus.stop()


async def test_presence_that_cannot_be_read_stands_on_the_last_reading(fresh_nats: NatsServer) -> None:
    bus = await _ready_bus(fresh_nats)
    try:
        readiness = BusReadiness(bus, STAGES)
        assert (await readiness.check())[0]
        await bus.js.delete_stream(f"KV_{PRESENCE_BUCKET}")  # unreadable, as while the bucket elects a leader
        ok, report = await readiness.check()
        assert ok, report
        assert report["presence"].startswith("unreadable"), report
        assert report["stage:retrieval"] == "1 ready"
        assert await readiness.blocker() is None, "a turn is not refused for entries nobody could renew"
    finally:
        await bus.stop()


async def test_a_question_waits_for_a_reconnection_under_way_not_for_a_dead_bus(fresh_nats: NatsServer) -> None:
    bus = await _ready_bus(fresh_nats)
    try:
        fresh_nats.kill()
        for _ in range(500):  # the client notices the closed socket within milliseconds
            if not bus.connected:
                break
            await asyncio.sleep(0.01)
        started = time.monotonic()
        assert not await bus.wait_connected(0.3), "the server is dead: told once the grace is over"
        assert time.monotonic() - started >= 0.3
        restart = asyncio.get_running_loop().run_in_executor(None, fresh_nats.start)
        assert await bus.wait_connected(20), "a server back on its port: the reconnection is waited for"
        await restart
    finally:
        await bus.stop()


async def test_a_restarted_server_empty_presence_refuses_no_turn_while_the_stages_announce(
        fresh_nats: NatsServer) -> None:
    """A restarted server's presence bucket is recreated empty: until the stages have announced again, that
    says nothing about them (the fault run's NATS kill saw 38 questions refused as "no replica of understanding"
    while every stage was alive). A stage that never announced on a bus that never restarted is still named."""
    bus = await _ready_bus(fresh_nats)
    try:
        readiness = BusReadiness(bus, (*STAGES, "verifier"), cache_s=0)
        blocker = await readiness.blocker()
        assert blocker is not None and blocker.stage == "verifier", "never announced, no restart: named"
        await bus.announce("verifier", "verifier-1", True)
        assert await readiness.blocker() is None
        fresh_nats.kill()
        for _ in range(500):
            if not bus.connected:
                break
            await asyncio.sleep(0.01)
        await asyncio.get_running_loop().run_in_executor(None, fresh_nats.start)
        assert await bus.wait_connected(20)
        assert await bus.live_stages() == {}, "the memory bucket came back empty"
        assert await readiness.blocker() is None, "no stage refused while they announce again"
        ok, report = await readiness.check()
        assert not ok and report["unavailable"] == "understanding, retrieval, verifier", report  # /readyz tells
    finally:
        await bus.stop()
