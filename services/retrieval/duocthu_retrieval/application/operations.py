"""Operator actions on the index from outside the service (``duocthu index``, ``duocthu up``): status and rebuild.

Both go through a running retrieval replica when there is one (request/reply):
in local mode the replica holds the Qdrant directory's lock, so a second
process must not open it.  With no replica answering, the action runs in this
process against the same Qdrant (local path or ``QDRANT_URL``) and the same
``CORPUS`` stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildRequest, IndexStatusReply
from duocthu_retrieval.application.maintenance import IndexMaintenance
from duocthu_retrieval.errors import OperationFailed
from duocthu_retrieval.ports import Replicas

Echo = Callable[[str], None]
#: Opens this process's own index side (the local directory or ``QDRANT_URL``) for the length of an action.
OpenLocal = Callable[[], AbstractAsyncContextManager[IndexMaintenance]]


async def wait_for_status(replicas: Replicas, timeout_s: float) -> IndexStatusReply:
    """Poll until a retrieval replica answers (it is starting up)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        status = await replicas.status(timeout_s=2.0)
        if status is not None:
            return status
        if loop.time() >= deadline:
            raise OperationFailed(f"no retrieval replica answered within {timeout_s:.0f}s")
        await asyncio.sleep(0.5)


async def next_completion(queue: asyncio.Queue[CorpusReleaseCompleted],
                          predicate: Callable[[CorpusReleaseCompleted], bool],
                          timeout_s: float) -> CorpusReleaseCompleted:
    """The first release completion on ``queue`` that ``predicate`` accepts."""

    async def first() -> CorpusReleaseCompleted:
        while True:
            message = await queue.get()
            if predicate(message):
                return message

    try:
        return await asyncio.wait_for(first(), timeout_s)
    except TimeoutError as exc:
        raise OperationFailed(f"no release completion within {timeout_s:.0f}s") from exc


async def index_status(replicas: Replicas | None, open_local: OpenLocal) -> IndexStatusReply:
    """What a running replica serves, or (none running) what this process would serve."""
    if replicas is not None and (status := await replicas.status()) is not None:
        return status
    async with open_local() as maintenance:
        return await maintenance.status()


async def rebuild(replicas: Replicas, open_local: OpenLocal, *, release_id: str | None, timeout_s: float,
                  echo: Echo) -> CorpusReleaseCompleted:
    """Replay a release into a fresh collection and switch the alias (through the service if it runs)."""
    async with replicas.completions() as completions:
        reply = await replicas.rebuild(IndexRebuildRequest(release_id=release_id))
        if reply is not None:
            if not reply.accepted or reply.collection is None:
                raise OperationFailed(f"the retrieval service refused the rebuild: {reply.error}")
            echo(f"rebuilding release {reply.release_id} into {reply.collection} (through the running service)")
            correlation = f"rebuild:{reply.collection}"
            return await next_completion(completions, lambda m: m.correlation_id == correlation, timeout_s)
    echo("no retrieval service is running: rebuilding in this process")
    async with open_local() as maintenance:
        target, build = await maintenance.plan_rebuild(release_id)
        echo(f"rebuilding release {target} into {maintenance.indexer.collection_for(target, build)}")
        return await maintenance.rebuild_into(target, build)
