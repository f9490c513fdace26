"""The index side of a retrieval replica: its Qdrant handle, query embedder, indexer and gate.

Opened at start-up (local mode locks the directory, so only here, never at
import) and shared by the batch consumer, the readiness check, the
index-status/rebuild requests and, later, the query routes.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply
from duocthu_providers.embedding.factory import make_query_embedder, make_sparse_encoder, space_identity
from duocthu_providers.embedding.port import Embedder
from duocthu_retrieval import metrics
from duocthu_retrieval.adapters.corpus_stream import CorpusStream
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.domain.manifest import check_manifest
from duocthu_retrieval.indexing import Indexer, RebuildFailed
from duocthu_retrieval.routes import Retriever
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.observability.logging import get_logger
from duocthu_text.sparse import SparseEncoder

log = get_logger(__name__)


def rebuild_tag() -> str:
    return "r" + datetime.now(UTC).strftime("%Y%m%d%H%M%S%f")


class IndexService:
    def __init__(self, settings: RetrievalSettings, *, embedder: Embedder | None = None,
                 sparse: SparseEncoder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_query_embedder(settings)
        self.sparse = sparse or make_sparse_encoder()
        self.identity: EmbeddingModel = space_identity(self.embedder, self.sparse)
        self._index: QdrantIndex | None = None
        self._bus: Bus | None = None
        self._rebuild: asyncio.Task[None] | None = None
        self.rebuilding: str | None = None
        self._retriever: Retriever | None = None

    @property
    def index(self) -> QdrantIndex:
        if self._index is None:
            raise RuntimeError("the index is not open (service not started)")
        return self._index

    @property
    def retriever(self) -> Retriever:
        """Routes A–D over the open index with this replica's query embedder."""
        if self._retriever is None or self._retriever.index is not self.index:
            self._retriever = Retriever(self.index, self.embedder, self.sparse)
        return self._retriever

    @property
    def indexer(self) -> Indexer:
        return Indexer(self.index, keep_collections=self.settings.index_keep_collections)

    def open(self) -> None:
        """Open the index (in local mode this takes the directory's lock for this process)."""
        if self._index is None:
            self._index = QdrantIndex.open(self.settings)

    async def start(self, bus: Bus) -> None:
        self._bus = bus
        self.open()
        assert self._index is not None
        ok, detail = await self.live_index()
        log.info("index_opened", where=self._index.where, ready=ok, detail=detail)

    async def stop(self) -> None:
        if self._rebuild is not None:
            self._rebuild.cancel()
            with contextlib.suppress(BaseException):
                await self._rebuild
        if self._index is not None:
            await self._index.close()
            self._index = None

    # ------------------------------------------------------------------ indexing

    async def apply(self, message: CorpusBatchEmbedded) -> list[CorpusReleaseCompleted]:
        try:
            results = await self.indexer.apply(message)
        except Exception:
            metrics.INDEX_BATCHES.labels("error").inc()
            raise
        metrics.INDEX_BATCHES.labels("ok").inc()
        for result in results:
            metrics.INDEX_RELEASES.labels(result.payload.status).inc()
        return results

    # ------------------------------------------------------------------ readiness and status

    async def live_index(self) -> tuple[bool, str]:
        """Readiness: a live release whose manifest names this replica's query vector space."""
        if self._index is None:
            return False, "index not open"
        try:
            manifest = await self._index.live_manifest()
        except Exception as exc:
            metrics.INDEX_READY.set(0)
            return False, f"Qdrant unavailable: {type(exc).__name__}: {exc}"
        check = check_manifest(manifest, self.identity)
        metrics.INDEX_READY.set(1 if check.ok else 0)
        if manifest is not None:
            metrics.INDEX_LIVE_CHUNKS.set(manifest.chunk_count)
        return check.ok, check.detail

    async def status(self) -> IndexStatusReply:
        ready, detail = await self.live_index()
        collection = manifest = count = None
        if self._index is not None:
            with contextlib.suppress(Exception):
                collection = await self._index.live_collection()
                manifest = await self._index.live_manifest()
                count = await self._index.count(collection) if collection else None
        return IndexStatusReply(
            instance_id=self.settings.instance_id, ready=ready, detail=detail, alias=self.settings.index_alias,
            collection=collection, manifest=manifest, point_count=count, query_model=self.identity,
            rebuild_in_progress=self.rebuilding,
        )

    # ------------------------------------------------------------------ rebuild through the service

    async def request_rebuild(self, request: IndexRebuildRequest) -> IndexRebuildReply:
        """Start a rebuild in the background (the local Qdrant directory is this process's)."""
        if self._bus is None:
            return IndexRebuildReply(accepted=False, error="service not started")
        if self._rebuild is not None and not self._rebuild.done():
            return IndexRebuildReply(accepted=False, collection=self.rebuilding,
                                     error=f"a rebuild into {self.rebuilding} is already running")
        source = CorpusStream(self._bus.js)
        try:
            target = await self.indexer.rebuild_target(source, request.release_id)
        except RebuildFailed as exc:
            return IndexRebuildReply(accepted=False, error=str(exc))
        build = rebuild_tag()
        collection = self.indexer.collection_for(target, build)
        self.rebuilding = collection
        self._rebuild = asyncio.create_task(self._run_rebuild(source, target, build))
        return IndexRebuildReply(accepted=True, release_id=target, collection=collection)

    async def _run_rebuild(self, source: CorpusStream, release_id: str, build: str) -> None:
        bus = self._bus
        try:
            result = await self.indexer.rebuild(source, release_id=release_id, build=build)
            metrics.INDEX_RELEASES.labels(result.payload.status).inc()
            if bus is not None:
                await bus.publish(result)
        except Exception:
            log.exception("rebuild_failed", release_id=release_id)
        finally:
            self.rebuilding = None
