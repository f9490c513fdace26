"""Short ack wait with progress acks: a slow live handler is never redelivered, a dead one's after the short ack wait
(the kill -9 case: tests/e2e/test_platform_e2e.py with the default ack wait)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from nats.aio.msg import Msg

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload
from duocthu_runtime import Bus, RuntimeSettings, Stage, StageContext, addressed_subject, decode, new_turn
from duocthu_runtime.devstack import NatsServer


async def test_slow_handler_keeps_its_message_and_a_dead_one_is_redelivered_quickly(
        fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_ack_wait_s=1.0, bus_fetch_timeout_s=0.3)
    deliveries: list[str] = []
    release = asyncio.Event()

    async def slow(message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        deliveries.append(f"slow:{message.payload.query}")
        await asyncio.wait_for(release.wait(), timeout=10)  # 3.5 ack waits below
        return [ctx.complete(Decision.ABSTAIN, Reason.STAGE_NOT_IMPLEMENTED)]

    worker = Bus(settings, client_name="slow-replica")
    Stage("probe", worker).consumes(TurnRequested, slow)
    await worker.start()
    publisher = Bus(settings, client_name="publisher")
    await publisher.connect()
    completions: asyncio.Queue[bytes] = asyncio.Queue()

    async def completed(msg: Msg) -> None:
        await completions.put(msg.data)

    await publisher.broker.connection.subscribe(addressed_subject(TurnCompleted, "gw"), cb=completed)
    turn = new_turn(TurnRequested, TurnRequestedPayload(query="slow"), origin="gw", deadline_s=60, llm_calls=8)
    await publisher.publish(turn)
    await asyncio.sleep(3.5)
    assert deliveries == ["slow:slow"], "progress acks kept a live slow handler's message from redelivery"
    release.set()
    completion = decode(await asyncio.wait_for(completions.get(), timeout=10), TurnCompleted)
    assert completion.turn_id == turn.turn_id and completion.payload.reason is Reason.STAGE_NOT_IMPLEMENTED
    assert deliveries == ["slow:slow"], "completed by the one delivery"

    await worker.stop()
    await publisher.stop()
