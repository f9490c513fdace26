"""What the retrieval use cases need from the outside, as Protocols.

:class:`ChunkSearch` is the query side (routes A–D, monograph mode, the
routing eval) and :class:`ReleaseStore` the index-maintenance side (the
indexer, the readiness gate, rebuilds); :class:`VectorIndex` is both, which
is what a vector-store adapter implements (``adapters.qdrant_index`` with
qdrant-client today; a Qdrant Edge shard is a second implementation of the
same port).  Every method of an index raises
:class:`~duocthu_retrieval.errors.IndexUnavailable` when the store fails,
and nothing else for a store failure, so a use case can tell "the index is
down" from "the book says nothing".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Literal, Protocol

from duocthu_contracts.corpus import ChunkRecord, EmbeddedChunk, EmbeddingModel, ReleaseManifest, SparseVector
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply
from duocthu_contracts.sections import SectionKey
from duocthu_retrieval.domain.release import BatchEntry
from duocthu_retrieval.domain.search import ANY, ScoredChunk, SearchFilter

TextMatch = Literal["phrase", "all_words"]


class ChunkSearch(Protocol):
    """Reads of the live release: whole sections by filter, and dense / sparse / hybrid / phrase search."""

    async def live_collection(self) -> str | None: ...

    async def ledger(self, collection: str) -> list[BatchEntry]:
        """The batches a release was built from (their catalogs are the release's drug catalog)."""
        ...

    async def scroll(self, flt: SearchFilter, *, collection: str | None = None,
                     limit: int | None = None) -> list[ChunkRecord]:
        """Every chunk matching ``flt``, in book order; ``limit`` bounds the number read."""
        ...

    async def scroll_section(self, drug_id: str, section_key: SectionKey) -> list[ChunkRecord]:
        """The whole section, every part, in part order — never top-k."""
        ...

    async def scroll_drug(self, drug_id: str, section_keys: Sequence[SectionKey] = ()) -> list[ChunkRecord]:
        """A monograph's chunks (optionally some sections only), sections in book order."""
        ...

    async def dense_search(self, vector: Sequence[float], flt: SearchFilter = ANY, *, limit: int = 10,
                           min_score: float | None = None) -> list[ScoredChunk]: ...

    async def sparse_search(self, sparse: SparseVector, flt: SearchFilter = ANY, *, limit: int = 10,
                            min_score: float | None = None) -> list[ScoredChunk]: ...

    async def hybrid_search(self, vector: Sequence[float], sparse: SparseVector, flt: SearchFilter = ANY,
                            *, limit: int = 10, candidates: int = 50, min_dense_score: float | None = None,
                            min_sparse_score: float | None = None) -> list[ScoredChunk]:
        """Dense and sparse candidates, each with its own floor, fused by reciprocal rank."""
        ...

    async def text_match(self, text: str, flt: SearchFilter = ANY, *, match: TextMatch = "phrase",
                         folded: bool | None = None, limit: int | None = None) -> list[ChunkRecord]:
        """Chunks whose normalised text contains ``text`` as a phrase (or all its words)."""
        ...


class ReleaseStore(Protocol):
    """Writes of releases: one collection per release, its ledger and manifest, and the live alias."""

    @property
    def prefix(self) -> str:
        """The prefix of release collection names."""
        ...

    async def exists(self, collection: str) -> bool: ...

    async def live_collection(self) -> str | None: ...

    async def ensure_release_collection(self, collection: str, model: EmbeddingModel) -> None:
        """Create the collection for ``model``'s vector space, or verify it (raises ``IndexConflict``)."""
        ...

    async def upsert_chunks(self, collection: str, release_id: str, chunks: Sequence[EmbeddedChunk]) -> None: ...

    async def count(self, collection: str) -> int: ...

    async def record_batch(self, collection: str, entry: BatchEntry) -> None: ...

    async def ledger(self, collection: str) -> list[BatchEntry]: ...

    async def record_failure(self, collection: str, error: str) -> None: ...

    async def failure(self, collection: str) -> str | None: ...

    async def create_payload_indexes(self, collection: str) -> None: ...

    async def write_manifest(self, collection: str, manifest: ReleaseManifest) -> None: ...

    async def manifest(self, collection: str) -> tuple[ReleaseManifest, str] | None:
        """The manifest and when it was written, if the release passed its gates."""
        ...

    async def live_manifest(self) -> ReleaseManifest | None: ...

    async def switch_alias(self, collection: str) -> str | None:
        """Point the live alias at ``collection`` atomically; returns the previous target."""
        ...

    async def release_collections(self) -> list[str]: ...

    async def drop(self, collection: str, *, keep_sidecar: bool = False) -> None: ...


class VectorIndex(ChunkSearch, ReleaseStore, Protocol):
    """A vector store holding the releases: what one retrieval process opens (and alone may write)."""

    @property
    def where(self) -> str:
        """Where the store is (a URL or a directory), for logs and errors."""
        ...

    async def close(self) -> None: ...


class CorpusSource(Protocol):
    """Where a rebuild reads a release's batches back (the CORPUS stream in production)."""

    def batches(self, release_id: str) -> AsyncIterator[CorpusBatchEmbedded]: ...

    async def latest_live_release(self) -> str | None: ...


class Reranker(Protocol):
    """Optional cross-encoder: reorders at most ``max_candidates`` chunks.

    Any failure (:class:`~duocthu_retrieval.errors.RerankUnavailable`, a
    timeout, an invalid permutation) keeps the original order.
    """

    max_candidates: int

    async def rerank(self, query: str, chunks: Sequence[ChunkRecord]) -> list[int]: ...


class Replicas(Protocol):
    """Running retrieval replicas, asked from outside the service (``None``: no replica answered)."""

    async def status(self, timeout_s: float = 3.0) -> IndexStatusReply | None: ...

    async def rebuild(self, request: IndexRebuildRequest, timeout_s: float = 10.0) -> IndexRebuildReply | None: ...

    def completions(self) -> AbstractAsyncContextManager[asyncio.Queue[CorpusReleaseCompleted]]:
        """Release completions announced from now on (enter it *before* triggering the work)."""
        ...


class Publisher(Protocol):
    """Where a use case publishes the messages it produces outside a stage handler (a rebuild's outcome)."""

    async def publish(self, message: Message) -> bool: ...
