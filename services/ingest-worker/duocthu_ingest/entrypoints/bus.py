"""The ingest worker's bus handler: a thin translation of a job message into one worker run.

The run is CPU-bound and long (minutes for a whole book), so it runs in a
thread while the handler tells JetStream every few seconds that the job is
still in progress (otherwise ``ack_wait`` would hand it to another replica).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from faststream.exceptions import FastStreamException
from nats.errors import Error as NatsError

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import IngestJobRequested
from duocthu_ingest.application.worker import IngestWorker
from duocthu_runtime.bus.stage import Handler, StageContext

HEARTBEAT_S = 10.0


def make_handler(worker: IngestWorker) -> Handler[IngestJobRequested]:
    async def handle(message: IngestJobRequested, ctx: StageContext[IngestJobRequested]) -> Sequence[Message]:
        async def beat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_S)
                with contextlib.suppress(NatsError, FastStreamException):  # a missed beat only risks a redelivery
                    await ctx.heartbeat()

        heartbeat = asyncio.create_task(beat())
        try:
            return await asyncio.to_thread(worker.process, message.payload, correlation_id=message.correlation_id,
                                           causation_id=message.message_id)
        finally:
            heartbeat.cancel()

    return handle
