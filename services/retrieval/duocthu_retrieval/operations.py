"""Operator actions on the index, from outside the service: status and rebuild.

Both go through a running retrieval replica when there is one (core-NATS
request/reply): in local mode the replica holds the Qdrant directory's lock,
so a second process must not open it.  With no replica answering, the action
runs in this process against the same Qdrant (local path or ``QDRANT_URL``)
and the same ``CORPUS`` stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from duocthu_contracts import subjects as s
from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply, IndexStatusRequest
from duocthu_retrieval.adapters.corpus_stream import CorpusStream
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.index_service import IndexService, rebuild_tag
from duocthu_retrieval.indexing import Indexer
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.errors import MessageRejected

Echo = Callable[[str], None]


class OperationFailed(Exception):
    """The action could not be carried out; the message says why."""


async def request_status(bus: Bus, timeout_s: float = 3.0) -> IndexStatusReply | None:
    """Ask any retrieval replica; ``None`` when none answers."""
    try:
        reply = await bus.broker.request(IndexStatusRequest().model_dump_json().encode(), IndexStatusRequest.SUBJECT,
                                         timeout=timeout_s)
    except Exception:  # no responders or timeout: no replica is running
        return None
    return IndexStatusReply.model_validate_json(reply.body)


async def wait_for_status(bus: Bus, timeout_s: float) -> IndexStatusReply:
    """Poll until a retrieval replica answers (it is starting up)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        status = await request_status(bus, timeout_s=2.0)
        if status is not None:
            return status
        if loop.time() >= deadline:
            raise OperationFailed(f"no retrieval replica answered within {timeout_s:.0f}s")
        await asyncio.sleep(0.5)


@asynccontextmanager
async def release_watch(bus: Bus) -> AsyncIterator[asyncio.Queue[CorpusReleaseCompleted]]:
    """Release completions published from now on (subscribe *before* triggering the work)."""
    queue: asyncio.Queue[CorpusReleaseCompleted] = asyncio.Queue()

    async def on_msg(msg: Msg) -> None:
        with contextlib.suppress(MessageRejected):
            await queue.put(decode(msg.data, CorpusReleaseCompleted))

    sub = await bus.js.subscribe(CorpusReleaseCompleted.SUBJECT, stream=s.CORPUS_STREAM, ordered_consumer=True,
                                 deliver_policy=DeliverPolicy.NEW, cb=on_msg)
    try:
        yield queue
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()


async def next_completion(queue: asyncio.Queue[CorpusReleaseCompleted],
                          predicate: Callable[[CorpusReleaseCompleted], bool],
                          timeout_s: float) -> CorpusReleaseCompleted:
    async def first() -> CorpusReleaseCompleted:
        while True:
            message = await queue.get()
            if predicate(message):
                return message

    try:
        return await asyncio.wait_for(first(), timeout_s)
    except TimeoutError as exc:
        raise OperationFailed(f"no release completion within {timeout_s:.0f}s") from exc


async def rebuild(bus: Bus, settings: RetrievalSettings, *, release_id: str | None, timeout_s: float,
                  echo: Echo) -> CorpusReleaseCompleted:
    """Replay a release into a fresh collection and switch the alias (through the service if it runs)."""
    async with release_watch(bus) as completions:
        try:
            raw = await bus.broker.request(IndexRebuildRequest(release_id=release_id).model_dump_json().encode(),
                                           IndexRebuildRequest.SUBJECT, timeout=10.0)
        except Exception:
            raw = None
        if raw is not None:
            reply = IndexRebuildReply.model_validate_json(raw.body)
            if not reply.accepted or reply.collection is None:
                raise OperationFailed(f"the retrieval service refused the rebuild: {reply.error}")
            echo(f"rebuilding release {reply.release_id} into {reply.collection} (through the running service)")
            correlation = f"rebuild:{reply.collection}"
            return await next_completion(completions, lambda m: m.correlation_id == correlation, timeout_s)
    echo("no retrieval service is running: rebuilding in this process")
    return await rebuild_in_process(bus, settings, release_id=release_id, echo=echo)


async def rebuild_in_process(bus: Bus, settings: RetrievalSettings, *, release_id: str | None,
                             echo: Echo) -> CorpusReleaseCompleted:
    index = QdrantIndex.open(settings)
    try:
        indexer = Indexer(index, keep_collections=settings.index_keep_collections)
        source = CorpusStream(bus.js)
        target = await indexer.rebuild_target(source, release_id)
        build = rebuild_tag()
        echo(f"rebuilding release {target} into {indexer.collection_for(target, build)}")
        result = await indexer.rebuild(source, release_id=target, build=build)
        await bus.publish(result)
        return result
    finally:
        await index.close()


async def status_in_process(settings: RetrievalSettings) -> IndexStatusReply:
    service = IndexService(settings)
    service.open()
    try:
        return await service.status()
    finally:
        await service.stop()
