"""Composition root of the retrieval stage: the one module that wires adapters to use cases.

``build_spec`` assembles the process: the turn consumer (routes A–D and the
evidence policy), the index side (batch consumer, readiness gate, index
status and rebuild requests) and monograph mode (drugs, sections, section
text).  ``index_cli`` assembles the ``duocthu index`` commands, and
``open_index`` the vector store for tools that build an index in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbedded, TurnUnderstood
from duocthu_providers import Embedder, make_query_embedder, make_sparse_encoder, space_identity
from duocthu_retrieval.adapters.corpus_stream import CorpusStream
from duocthu_retrieval.adapters.edge_index import EdgeIndex
from duocthu_retrieval.adapters.replicas import ReplicaClient
from duocthu_retrieval.application.maintenance import IndexMaintenance
from duocthu_retrieval.application.query import Retriever
from duocthu_retrieval.entrypoints.bus import batch_handler, serve_requests, turn_handler
from duocthu_retrieval.entrypoints.cli import index_commands
from duocthu_retrieval.errors import IndexUnavailable
from duocthu_retrieval.ports import Replicas, VectorIndex
from duocthu_retrieval.settings import IndexSettings, RetrievalSettings
from duocthu_runtime import Bus, ServiceSpec, Stage, get_logger, run_service
from duocthu_text import SparseEncoder

NAME = "retrieval"

log = get_logger(__name__)

#: How often a standby replica tries the embedded index's lock (its holder's death releases it).
STANDBY_POLL_S = 0.2


def open_index(settings: IndexSettings) -> VectorIndex:
    """The vector store ``settings`` name: a Qdrant server at ``QDRANT_URL`` (scale-out), else the embedded
    Qdrant Edge index under the var dir (which this process then locks)."""
    if settings.qdrant_url:
        # imported here: qdrant_client is a third of this process's import time, and the embedded default (the
        # one a supervisor restarts after a crash, with turns waiting on it) never needs it
        from duocthu_retrieval.adapters.qdrant_index import QdrantIndex

        return QdrantIndex.open(settings)
    return EdgeIndex.open(settings)


def query_space(settings: RetrievalSettings) -> tuple[Embedder, SparseEncoder, EmbeddingModel]:
    """The query embedder, the sparse encoder and the identity of the vector space they make together."""
    embedder = make_query_embedder(settings)
    sparse = make_sparse_encoder()
    return embedder, sparse, space_identity(embedder, sparse)


class RetrievalReplica:
    """What one retrieval process serves, once its index is open.

    The index is opened at start-up (local mode locks the directory, so never
    at import or wiring time); the bus entry points are wired before that
    and reach the use cases through this object.
    """

    def __init__(self, settings: RetrievalSettings, *, embedder: Embedder | None = None,
                 sparse: SparseEncoder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_query_embedder(settings)
        self.sparse = sparse or make_sparse_encoder()
        self.space = space_identity(self.embedder, self.sparse)
        self._index: VectorIndex | None = None
        self._maintenance: IndexMaintenance | None = None
        self._retriever: Retriever | None = None

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            raise RuntimeError("the index is not open (service not started)")
        return self._index

    @property
    def maintenance(self) -> IndexMaintenance:
        if self._maintenance is None:
            raise RuntimeError("the index is not open (service not started)")
        return self._maintenance

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            raise RuntimeError("the index is not open (service not started)")
        return self._retriever

    async def start(self, bus: Bus) -> None:
        index = self._index = await self._open_when_free()
        self._maintenance = IndexMaintenance(
            index, self.space, instance_id=self.settings.instance_id, alias=self.settings.index_alias,
            keep_collections=self.settings.index_keep_collections, corpus=CorpusStream(bus.js), publisher=bus)
        self._retriever = Retriever(index, self.embedder, self.sparse)
        ok, detail = await self._maintenance.live_index()
        log.info("index_opened", where=index.where, ready=ok, detail=detail)

    async def _open_when_free(self) -> VectorIndex:
        """Open the index; while another replica holds the embedded index, wait as its warm standby.

        The embedded index has one owner (a file lock), so a second replica cannot serve beside it; but it can
        be started, imported and connected, and take the index over the moment the owner dies (the kernel
        releases the lock with the process): a turn held by a killed retrieval then waits for the ack wait,
        not for a whole Python process to be re-imported on a loaded machine (10-12 s in issue 21's
        fault-injection runs). Until then the standby consumes nothing and announces nothing.
        """
        waiting = False
        while True:
            try:
                return open_index(self.settings)
            except IndexUnavailable:
                if self.settings.qdrant_url:
                    raise  # a server has no owner: its failure is a real one
                if not waiting:
                    log.info("index_standby", detail="another replica holds the embedded index; waiting for it")
                    waiting = True
                await asyncio.sleep(STANDBY_POLL_S)

    async def stop(self) -> None:
        if self._maintenance is not None:
            await self._maintenance.stop()
        if self._index is not None:
            await self._index.close()
        self._index = self._maintenance = self._retriever = None

    async def live_index(self) -> tuple[bool, str]:
        """Readiness: a live release whose manifest names this replica's query vector space."""
        if self._maintenance is None:
            return False, "index not open"
        return await self._maintenance.live_index()


def build_spec(settings: RetrievalSettings | None = None, replica: RetrievalReplica | None = None) -> ServiceSpec:
    config = settings or RetrievalSettings(service_name=NAME)
    served = replica or RetrievalReplica(config)

    def register(stage: Stage) -> None:
        stage.consumes(TurnUnderstood, turn_handler(lambda: served.retriever))
        stage.consumes(CorpusBatchEmbedded, batch_handler(lambda: served.maintenance))
        serve_requests(stage.bus.broker, queue=NAME, index=lambda: served.index,
                       maintenance=lambda: served.maintenance)

    return ServiceSpec(name=NAME, settings=config, register=register, on_startup=[served.start],
                       on_shutdown=[served.stop], readiness=[served.live_index])


@contextlib.asynccontextmanager
async def open_maintenance(settings: RetrievalSettings, bus: Bus | None) -> AsyncIterator[IndexMaintenance]:
    """This process's own index side, for an operator action when no replica runs (opens the store)."""
    _, _, space = query_space(settings)
    index = open_index(settings)
    try:
        yield IndexMaintenance(index, space, instance_id=settings.instance_id, alias=settings.index_alias,
                               keep_collections=settings.index_keep_collections,
                               corpus=CorpusStream(bus.js) if bus is not None else None, publisher=bus)
    finally:
        await index.close()


def replicas(bus: Bus) -> Replicas:
    """The running retrieval replicas, asked over ``bus``."""
    return ReplicaClient(bus)


#: ``duocthu index status | rebuild``.
index_cli = index_commands(open_maintenance, replicas)


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
