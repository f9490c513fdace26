"""The index side of a retrieval replica: applying corpus batches, the readiness gate, status and rebuilds.

The readiness gate: a replica serves only when the live release's manifest
names exactly its query vector space.  A rebuild requested through the
service runs in the background in this process (the local Qdrant directory
is this process's), while queries keep reading the live collection.
"""

from __future__ import annotations

import asyncio
import contextlib

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply
from duocthu_retrieval import metrics
from duocthu_retrieval.application.indexing import Indexer, new_build_tag
from duocthu_retrieval.domain.manifest import check_manifest
from duocthu_retrieval.errors import IndexUnavailable, RebuildFailed
from duocthu_retrieval.ports import CorpusSource, Publisher, VectorIndex
from duocthu_runtime import get_logger

log = get_logger(__name__)


class IndexMaintenance:
    def __init__(self, index: VectorIndex, space: EmbeddingModel, *, instance_id: str, alias: str,
                 keep_collections: int = 2, corpus: CorpusSource | None = None,
                 publisher: Publisher | None = None) -> None:
        self.index = index
        self.space = space
        self.instance_id = instance_id
        self.alias = alias
        self.indexer = Indexer(index, keep_collections=keep_collections)
        self.corpus = corpus
        self.publisher = publisher
        self.rebuilding: str | None = None
        self._rebuild: asyncio.Task[None] | None = None
        self._applying = asyncio.Lock()

    async def stop(self) -> None:
        if self._rebuild is not None:
            self._rebuild.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._rebuild

    # ------------------------------------------------------------------ indexing

    async def apply(self, message: CorpusBatchEmbedded) -> list[CorpusReleaseCompleted]:
        """One batch at a time: applying one reads the release's ledger, checks the batch against it and writes
        (awaiting between), and the stage hands a replica several deliveries at once — two batches of one release
        checked side by side would both pass (e.g. two embedding models) and neither fail the release."""
        try:
            async with self._applying:
                results = await self.indexer.apply(message)
        except IndexUnavailable:
            metrics.INDEX_BATCHES.labels("error").inc()
            raise
        metrics.INDEX_BATCHES.labels("ok").inc()
        for result in results:
            metrics.INDEX_RELEASES.labels(result.payload.status).inc()
        return results

    # ------------------------------------------------------------------ readiness and status

    async def live_index(self) -> tuple[bool, str]:
        """Readiness: a live release whose manifest names this replica's query vector space."""
        try:
            manifest = await self.index.live_manifest()
        except IndexUnavailable as exc:
            metrics.INDEX_READY.set(0)
            return False, f"Qdrant unavailable: {exc}"
        check = check_manifest(manifest, self.space)
        metrics.INDEX_READY.set(1 if check.ok else 0)
        if manifest is not None:
            metrics.INDEX_LIVE_CHUNKS.set(manifest.chunk_count)
        return check.ok, check.detail

    async def status(self) -> IndexStatusReply:
        ready, detail = await self.live_index()
        collection = manifest = count = indexed_at = None
        with contextlib.suppress(IndexUnavailable):
            collection = await self.index.live_collection()
            found = await self.index.manifest(collection) if collection else None
            manifest, indexed_at = found if found else (None, None)
            count = await self.index.count(collection) if collection else None
        return IndexStatusReply(
            instance_id=self.instance_id, ready=ready, detail=detail, alias=self.alias, collection=collection,
            manifest=manifest, point_count=count, query_model=self.space, rebuild_in_progress=self.rebuilding,
            indexed_at=indexed_at or None,
        )

    # ------------------------------------------------------------------ rebuilds

    async def request_rebuild(self, request: IndexRebuildRequest) -> IndexRebuildReply:
        """Start a rebuild in the background; the reply names the fresh collection it writes."""
        if self._rebuild is not None and not self._rebuild.done():
            return IndexRebuildReply(accepted=False, collection=self.rebuilding,
                                     error=f"a rebuild into {self.rebuilding} is already running")
        try:
            target, build = await self.plan_rebuild(request.release_id)
        except RebuildFailed as exc:
            return IndexRebuildReply(accepted=False, error=str(exc))
        collection = self.indexer.collection_for(target, build)
        self.rebuilding = collection
        self._rebuild = asyncio.create_task(self._rebuild_in_background(target, build))
        return IndexRebuildReply(accepted=True, release_id=target, collection=collection)

    async def plan_rebuild(self, release_id: str | None) -> tuple[str, str]:
        """The release a rebuild replays and the build tag of its fresh collection (raises :class:`RebuildFailed`)."""
        if self.corpus is None or self.publisher is None:
            raise RebuildFailed("service not started: a rebuild needs the CORPUS stream and a publisher")
        target = await self.indexer.rebuild_target(self.corpus, release_id)
        return target, new_build_tag()

    async def rebuild_into(self, release_id: str, build: str) -> CorpusReleaseCompleted:
        """Replay ``release_id`` into its fresh collection ``…__<build>``, switch the alias, announce the outcome."""
        if self.corpus is None or self.publisher is None:
            raise RebuildFailed("service not started: a rebuild needs the CORPUS stream and a publisher")
        result = await self.indexer.rebuild(self.corpus, release_id=release_id, build=build)
        metrics.INDEX_RELEASES.labels(result.payload.status).inc()
        await self.publisher.publish(result)
        return result

    async def _rebuild_in_background(self, release_id: str, build: str) -> None:
        try:
            await self.rebuild_into(release_id, build)
        except Exception:  # the top of a background task: nothing above it would see the failure
            log.exception("rebuild_failed", release_id=release_id)
        finally:
            self.rebuilding = None
