"""The stage framework against a real NATS server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from prometheus_client import REGISTRY

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload
from duocthu_runtime import Bus, RuntimeSettings, Stage, StageContext, decode, encode, new_turn
from duocthu_runtime.devstack import NatsServer


def _rejected(stage: str, reason: str) -> float:
    return REGISTRY.get_sample_value(
        "duocthu_bus_rejected_messages_total", {"stage": stage, "reason": reason}
    ) or 0.0


async def _collect_completions(bus: Bus, origin: str) -> asyncio.Queue[TurnCompleted]:
    queue: asyncio.Queue[TurnCompleted] = asyncio.Queue()

    async def on_msg(msg: Any) -> None:
        queue.put_nowait(decode(msg.data, TurnCompleted))

    await bus.broker.connection.subscribe(f"rag.v1.turn.completed.{origin}", cb=on_msg)
    return queue


async def test_unknown_major_version_is_counted_and_the_consumer_keeps_working(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    bus = Bus(settings, client_name="stage-under-test")
    seen: list[str] = []

    async def handler(message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        seen.append(message.payload.query)
        return [ctx.complete(Decision.ABSTAIN, Reason.STAGE_NOT_IMPLEMENTED)]

    stage = Stage("probe", bus)
    stage.consumes(TurnRequested, handler)
    await bus.start()
    client = Bus(settings, client_name="publisher")
    await client.connect()
    completions = await _collect_completions(client, "gw")
    before = _rejected("probe", "unknown_schema_version")

    future = new_turn(TurnRequested, TurnRequestedPayload(query="from the future"), origin="gw", deadline_s=30,
                      llm_calls=8)
    doc = json.loads(encode(future))
    doc["schema"] = "rag.turn.requested/2"
    await client.js.publish("rag.v1.turn.requested", json.dumps(doc).encode(),
                            headers={"Nats-Msg-Id": future.message_id})
    current = new_turn(TurnRequested, TurnRequestedPayload(query="today"), origin="gw", deadline_s=30, llm_calls=8)
    await client.publish(current)

    done = await asyncio.wait_for(completions.get(), 10)
    assert done.turn_id == current.turn_id
    assert seen == ["today"]
    assert _rejected("probe", "unknown_schema_version") == before + 1
    # both deliveries are settled (the refused one terminated), none waits for redelivery
    durable = stage.durable_name(TurnRequested, future.lane)
    for _ in range(50):
        info = await client.js.consumer_info("RAG_AUDIT", durable)
        if info.num_ack_pending == 0:
            break
        await asyncio.sleep(0.1)
    assert info.num_ack_pending == 0
    assert info.num_redelivered == 0
    await client.stop()
    await bus.stop()


async def test_handler_crash_completes_the_turn_with_internal_error(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    bus = Bus(settings, client_name="stage-under-test")

    async def handler(message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        raise RuntimeError("boom")

    Stage("crashy", bus).consumes(TurnRequested, handler)
    await bus.start()
    client = Bus(settings, client_name="publisher")
    await client.connect()
    completions = await _collect_completions(client, "gw")
    turn = new_turn(TurnRequested, TurnRequestedPayload(query="x"), origin="gw", deadline_s=30, llm_calls=8)
    await client.publish(turn)
    done = await asyncio.wait_for(completions.get(), 10)
    assert (done.payload.decision, done.payload.reason) == (Decision.ABSTAIN, Reason.INTERNAL_ERROR)
    assert done.causation_id == turn.message_id
    await client.stop()
    await bus.stop()


async def test_republishing_the_same_output_is_deduplicated(bus: Bus) -> None:
    turn = new_turn(TurnRequested, TurnRequestedPayload(query="dup"), origin="gw", deadline_s=30, llm_calls=8)
    assert await bus.publish(turn) is True
    assert await bus.publish(turn) is False


async def test_expired_turn_is_completed_as_budget_exhausted(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    bus = Bus(settings, client_name="stage-under-test")
    called = False

    async def handler(message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        nonlocal called
        called = True
        return []

    Stage("late", bus).consumes(TurnRequested, handler)
    await bus.start()
    client = Bus(settings, client_name="publisher")
    await client.connect()
    completions = await _collect_completions(client, "gw")
    turn = new_turn(TurnRequested, TurnRequestedPayload(query="x"), origin="gw", deadline_s=-1, llm_calls=8)
    await client.publish(turn)
    done = await asyncio.wait_for(completions.get(), 10)
    assert done.payload.reason == Reason.REQUEST_BUDGET_EXHAUSTED
    assert not called
    await client.stop()
    await bus.stop()


async def test_watch_latest_gives_each_replica_the_last_message_then_new_ones(fresh_nats: NatsServer) -> None:
    from duocthu_contracts.messages import CorpusReleaseCompleted, CorpusReleaseResultPayload
    from duocthu_runtime import new_message

    settings = RuntimeSettings(nats_url=fresh_nats.url)
    publisher = Bus(settings, client_name="publisher")
    await publisher.connect()
    for release in ("r1", "r2"):
        await publisher.publish(new_message(CorpusReleaseCompleted,
                                            CorpusReleaseResultPayload(release_id=release, status="live")))
    replicas = [Bus(settings, client_name=f"replica-{i}") for i in range(2)]
    seen: list[list[str]] = [[], []]
    for i, replica in enumerate(replicas):
        await replica.connect()

        async def remember(message: CorpusReleaseCompleted, i: int = i) -> None:
            seen[i].append(message.payload.release_id)

        await replica.watch(CorpusReleaseCompleted, remember)
    await publisher.publish(new_message(CorpusReleaseCompleted,
                                        CorpusReleaseResultPayload(release_id="r3", status="live")))
    for _ in range(50):
        if all(s == ["r2", "r3"] for s in seen):
            break
        await asyncio.sleep(0.05)
    assert seen == [["r2", "r3"], ["r2", "r3"]]
    for bus in (publisher, *replicas):
        await bus.stop()
