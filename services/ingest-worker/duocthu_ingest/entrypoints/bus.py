"""The ingest worker's bus handler: a thin translation of a job message into one worker run.

The run is CPU-bound and long (minutes for a whole book), so it runs in a
thread while the handler tells JetStream every few seconds that the job is
still in progress (otherwise ``ack_wait`` would hand it to another replica)
and publishes how far it is (``ingest.v1.job.progress``, core NATS, not
stored): the worker thread only records the latest count, the event loop
publishes it at most once a second, so a fast stage does not flood the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal

from faststream.exceptions import FastStreamException
from nats.errors import Error as NatsError

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    IngestJobProgress,
    IngestJobProgressPayload,
    IngestJobRequested,
    IngestJobResult,
)
from duocthu_ingest.application.worker import IngestWorker
from duocthu_runtime import Handler, StageContext, new_message

HEARTBEAT_S = 10.0
PROGRESS_S = 1.0

Publish = Callable[[Message], Awaitable[None]]
Stage = Literal["parse", "embed", "done", "failed"]


class _Latest:
    """The newest (stage, done, total) of one job, written by the worker thread, read by the loop.

    Pages count within the job's own page range (a part of a book), not the whole PDF.
    """

    def __init__(self, page_range: tuple[int, int] | None) -> None:
        self.page_range = page_range
        self.value: tuple[Stage, int, int | None] | None = None
        self.sent: tuple[Stage, int, int | None] | None = None

    def parse(self, page: int, pages: int) -> None:
        first, last = self.page_range or (0, pages - 1)
        own = min(last, pages - 1) - first + 1
        self.value = ("parse", max(0, min(page - first + 1, own)), own)

    def embed(self, done: int, total: int) -> None:
        self.value = ("embed", done, total)


def make_handler(worker: IngestWorker, publish: Publish | None = None) -> Handler[IngestJobRequested]:
    async def handle(message: IngestJobRequested, ctx: StageContext[IngestJobRequested]) -> Sequence[Message]:
        job = message.payload
        latest = _Latest(job.page_range)

        async def report(stage: Stage, done: int, total: int | None) -> None:
            if publish is None:
                return
            payload = IngestJobProgressPayload(job_id=job.job_id, release_id=job.release_id,
                                               part_index=job.part_index, stage=stage, done=done, total=total)
            with contextlib.suppress(NatsError, FastStreamException):  # advisory: a lost update is harmless
                await publish(new_message(IngestJobProgress, payload, correlation_id=message.correlation_id,
                                          causation_id=message.message_id))

        async def beat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_S)
                with contextlib.suppress(NatsError, FastStreamException):  # a missed beat only risks a redelivery
                    await ctx.heartbeat()

        async def progress() -> None:
            while True:
                await asyncio.sleep(PROGRESS_S)
                current = latest.value
                if current is not None and current != latest.sent:
                    latest.sent = current
                    await report(*current)

        tasks = [asyncio.create_task(beat()), asyncio.create_task(progress())]
        failed = True
        try:
            out = await asyncio.to_thread(worker.process, job, correlation_id=message.correlation_id,
                                          causation_id=message.message_id, progress=latest.parse,
                                          embedded_progress=latest.embed)
            failed = any(isinstance(m, IngestJobResult) and m.payload.status == "failed" for m in out)
            return out
        finally:
            for task in tasks:
                task.cancel()
            _, done, total = latest.value or ("parse", 0, None)
            await report("failed" if failed else "done", done, total)

    return handle
