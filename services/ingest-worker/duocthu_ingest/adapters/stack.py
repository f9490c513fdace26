"""Ingest jobs through a running stack: publish the jobs of one release, wait for their results and the release.

Used by ``duocthu ingest`` when a stack runs (the job goes to an ingest
worker like any other) and by ``duocthu up`` for the sample corpus.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from nats.aio.msg import Msg
from nats.errors import Error as NatsError

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    CorpusReleaseCompleted,
    IngestJobProgress,
    IngestJobProgressPayload,
    IngestJobRequested,
    IngestJobRequestedPayload,
    IngestJobResult,
)
from duocthu_runtime import Bus, MessageRejected, RuntimeSettings, decode, new_message, subject_for_type

CLIENT = "duocthu-ingest-cli"
M = TypeVar("M", bound=Message)


async def _first(queue: asyncio.Queue[M], accept: Callable[[M], bool], deadline: float) -> M:
    """The first message on ``queue`` that ``accept``s, before the loop time ``deadline`` (else TimeoutError)."""
    loop = asyncio.get_running_loop()
    while True:
        message = await asyncio.wait_for(queue.get(), timeout=max(0.1, deadline - loop.time()))
        if accept(message):
            return message


async def submit(settings: RuntimeSettings, payload: IngestJobRequestedPayload, timeout_s: float, wait_release: bool,
                 correlation_id: str | None = None) -> tuple[IngestJobResult, CorpusReleaseCompleted | None]:
    """Publish one job; its result, and (``wait_release`` and embedded) its release's completion.

    Raises ``TimeoutError`` when they do not arrive within ``timeout_s``.  ``settings`` carry the
    operator identity (:func:`duocthu_runtime.devstack.stack_discovery.ops_settings`): a stage may not publish jobs.
    """
    bus = Bus(settings, client_name=CLIENT)
    await bus.connect()
    try:
        async with bus.follow(IngestJobResult) as results, bus.follow(CorpusReleaseCompleted) as releases:
            await bus.publish(new_message(IngestJobRequested, payload, correlation_id=correlation_id or f"cli:{payload.job_id}"))
            deadline = asyncio.get_running_loop().time() + timeout_s
            result = await _first(results, lambda r: r.payload.job_id == payload.job_id, deadline)
            release: CorpusReleaseCompleted | None = None
            if wait_release and result.payload.status == "embedded":
                release = await _first(releases, lambda r: r.payload.release_id == payload.release_id, deadline)
            return result, release
    finally:
        await bus.stop()


@contextlib.asynccontextmanager
async def _progress_of(job_ids: set[str], settings: RuntimeSettings,
                       progress: Callable[[IngestJobProgressPayload], None] | None) -> AsyncIterator[None]:
    """While inside, hand the progress updates of ``job_ids`` to ``progress`` (core NATS, nothing stored)."""
    if progress is None:
        yield
        return
    bus = Bus(settings, client_name=CLIENT)
    await bus.connect()

    async def on(msg: Msg) -> None:
        with contextlib.suppress(MessageRejected):
            update = decode(msg.data, IngestJobProgress).payload
            if update.job_id in job_ids:
                progress(update)

    try:
        nc = bus.broker.connection
        sub = await nc.subscribe(subject_for_type(IngestJobProgress), cb=on)
        yield
        # a worker sends a job's last update before its result: once the result is here, a round trip to the
        # server and a drain deliver that update too
        with contextlib.suppress(NatsError, TimeoutError):
            await nc.flush(timeout=5)
            await sub.drain()  # type: ignore[no-untyped-call]  # nats-py leaves drain unannotated
    finally:
        await bus.stop()


async def wait_for_release(settings: RuntimeSettings, release_id: str, timeout_s: float) -> CorpusReleaseCompleted:
    """The completion of ``release_id`` (already announced or still to come)."""
    bus = Bus(settings, client_name=CLIENT)
    await bus.connect()
    try:
        async with bus.follow(CorpusReleaseCompleted, since="all") as releases:
            deadline = asyncio.get_running_loop().time() + timeout_s
            return await _first(releases, lambda r: r.payload.release_id == release_id, deadline)
    finally:
        await bus.stop()


async def submit_all(settings: RuntimeSettings, jobs: list[IngestJobRequestedPayload], timeout_s: float,
                     wait_release: bool, progress: Callable[[IngestJobProgressPayload], None] | None = None,
                     ) -> tuple[list[IngestJobResult], CorpusReleaseCompleted | None]:
    """Publish the part jobs of one release (replicas share them) and wait for every result and the release.

    ``progress`` receives the workers' progress updates of these jobs as they arrive.
    """
    async with _progress_of({job.job_id for job in jobs}, settings, progress):
        results = await asyncio.gather(*(submit(settings, job, timeout_s, wait_release=False) for job in jobs))
    outcomes = [r for r, _ in results]
    release = None
    if wait_release and all(r.payload.status == "embedded" for r in outcomes):
        release = await wait_for_release(settings, jobs[0].release_id, timeout_s)
    return outcomes, release
