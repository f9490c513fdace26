"""The Qdrant adapter: the only code that talks to the vector store.

One class for both deployments: ``qdrant-client`` local on-disk mode (the
embedded default, opened by the retrieval process only) or a Qdrant server
(``QDRANT_URL``).  Writes serve the indexer (release collections, batch
ledger, manifest sidecar, alias switch); reads serve the routes of the
retrieval stage (whole-section scroll, dense / sparse / hybrid search with
payload filters and score floors, phrase match on the normalised text).
Every read goes through the live alias unless a collection is named.  It
implements :class:`duocthu_retrieval.ports.VectorIndex`: every failure of the
store (an HTTP error, a refused request, a missing collection in local mode)
leaves it as :class:`IndexUnavailable`, and nothing else does.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Sequence
from typing import Any

import httpx
from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ApiException, UnexpectedResponse

from duocthu_contracts.corpus import ChunkRecord, EmbeddedChunk, EmbeddingModel, ReleaseManifest
from duocthu_contracts.corpus import SparseVector as SparseVec
from duocthu_contracts.sections import SectionKey
from duocthu_retrieval.adapters.sidecar_records import (
    batch_entry,
    batch_key,
    batch_record,
    failure_record,
    ledger_order,
    manifest_of,
    manifest_record,
)
from duocthu_retrieval.domain.naming import is_release_collection, sidecar_name
from duocthu_retrieval.domain.points import (
    DENSE_VECTOR,
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    SEARCH_TEXT_FIELD,
    SEARCH_TEXT_FOLDED_FIELD,
    SPARSE_FOLDED_VECTOR,
    SPARSE_VECTOR,
    TEXT_INDEXES,
    chunk_from_payload,
    chunk_payload,
    payload_conditions,
    point_id,
    query_sparse,
    search_text,
    search_text_folded,
    split_sparse,
)
from duocthu_retrieval.domain.release import BatchEntry
from duocthu_retrieval.domain.search import ANY, ScoredChunk, SearchFilter, book_order
from duocthu_retrieval.errors import IndexConflict, IndexUnavailable
from duocthu_retrieval.ports import TextMatch
from duocthu_retrieval.settings import IndexSettings
from duocthu_runtime import translating
from duocthu_text.vietnamese import has_diacritics

_SIDECAR_NS = uuid.UUID("5d1f2a8e-8f4b-5f7e-b7b1-2c7f0c3a9e41")
_DISTANCES = {"Cosine": qm.Distance.COSINE, "Dot": qm.Distance.DOT, "Euclid": qm.Distance.EUCLID}
_SCROLL_PAGE = 256

#: What qdrant-client raises when the store fails: HTTP errors and refusals (server), ``ValueError`` for a
#: missing collection or alias and ``RuntimeError`` for a closed client (local mode).
_STORE_ERRORS = (ApiException, httpx.HTTPError, OSError, ValueError, RuntimeError)



def _unavailable(index: QdrantIndex, exc: BaseException) -> IndexUnavailable:
    return IndexUnavailable(f"Qdrant at {index.where}: {type(exc).__name__}: {exc}")


#: A port method: a store failure leaves it as :class:`IndexUnavailable` (the port's one error).
_store_call = translating(_STORE_ERRORS, _unavailable)


def _sidecar_id(key: str) -> str:
    return str(uuid.uuid5(_SIDECAR_NS, key))


class QdrantIndex:
    def __init__(self, client: AsyncQdrantClient, *, alias: str, prefix: str, upsert_batch: int = 256,
                 where: str = "") -> None:
        self.client = client
        self.alias = alias
        self.prefix = prefix
        self.upsert_batch = upsert_batch
        self.where = where

    @classmethod
    def open(cls, settings: IndexSettings) -> QdrantIndex:
        """Connect to ``QDRANT_URL`` or open the local directory (which locks it for this process)."""
        if settings.qdrant_url:
            client = AsyncQdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key,
                                       timeout=int(settings.qdrant_timeout_s))
            where = settings.qdrant_url
        else:
            path = settings.local_path()
            path.mkdir(parents=True, exist_ok=True)
            try:
                client = AsyncQdrantClient(path=str(path))
            except RuntimeError as exc:  # portalocker: another process holds the directory
                raise IndexUnavailable(
                    f"the local Qdrant directory {path} is in use by another process (the retrieval service?); "
                    "go through the running service or stop it first"
                ) from exc
            where = str(path)
        return cls(client, alias=settings.index_alias, prefix=settings.index_collection_prefix,
                    upsert_batch=settings.index_upsert_batch, where=where)

    @_store_call
    async def close(self) -> None:
        await self.client.close()

    # ------------------------------------------------------------------ collections and alias

    @_store_call
    async def exists(self, collection: str) -> bool:
        return bool(await self.client.collection_exists(collection))

    @_store_call
    async def live_collection(self) -> str | None:
        response = await self.client.get_aliases()
        for alias in response.aliases:
            if alias.alias_name == self.alias:
                return str(alias.collection_name)
        return None

    @_store_call
    async def ensure_release_collection(self, collection: str, model: EmbeddingModel) -> None:
        """Create the release collection and its sidecar if absent; verify them if present."""
        if await self.exists(collection):
            info = await self.client.get_collection(collection)
            vectors = info.config.params.vectors
            dense = vectors.get(DENSE_VECTOR) if isinstance(vectors, dict) else None
            sparse = info.config.params.sparse_vectors or {}
            if dense is None or dense.size != model.dimensions or set(sparse) != {SPARSE_VECTOR,
                                                                                   SPARSE_FOLDED_VECTOR}:
                raise IndexConflict(f"collection {collection} exists without a {model.dimensions}-d dense vector "
                                    "and the two sparse vectors")
        else:
            try:
                await self.client.create_collection(
                    collection,
                    vectors_config={DENSE_VECTOR: qm.VectorParams(size=model.dimensions,
                                                                  distance=_DISTANCES[model.distance])},
                    sparse_vectors_config={name: qm.SparseVectorParams(modifier=qm.Modifier.IDF)
                                           for name in (SPARSE_VECTOR, SPARSE_FOLDED_VECTOR)},
                )
            except (UnexpectedResponse, ValueError) as exc:  # another replica created it first
                if not await self.exists(collection):
                    raise IndexUnavailable(f"cannot create collection {collection}: {exc}") from exc
        await self._ensure_sidecar(collection)

    async def _ensure_sidecar(self, collection: str) -> None:
        sidecar = sidecar_name(collection)
        if await self.exists(sidecar):
            return
        try:
            await self.client.create_collection(sidecar, vectors_config={})
        except (UnexpectedResponse, ValueError) as exc:
            if not await self.exists(sidecar):
                raise IndexUnavailable(f"cannot create sidecar {sidecar}: {exc}") from exc

    @_store_call
    async def create_payload_indexes(self, collection: str) -> None:
        """The payload indexes of seed 003 §11.1 (no effect, but harmless, in local mode)."""
        fields: list[tuple[str, Any]] = [(name, qm.PayloadSchemaType.KEYWORD) for name in KEYWORD_INDEXES]
        fields += [(name, qm.PayloadSchemaType.INTEGER) for name in INTEGER_INDEXES]
        fields += [(name, qm.TextIndexParams(type=qm.TextIndexType.TEXT, tokenizer=qm.TokenizerType.WORD,
                                             lowercase=True, phrase_matching=True)) for name in TEXT_INDEXES]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
            for name, schema in fields:
                await self.client.create_payload_index(collection, name, field_schema=schema, wait=True)

    @_store_call
    async def switch_alias(self, collection: str) -> str | None:
        """Point the live alias at ``collection`` in one atomic request; returns the previous target."""
        previous = await self.live_collection()
        operations: list[Any] = []
        if previous is not None:
            operations.append(qm.DeleteAliasOperation(delete_alias=qm.DeleteAlias(alias_name=self.alias)))
        operations.append(qm.CreateAliasOperation(
            create_alias=qm.CreateAlias(collection_name=collection, alias_name=self.alias)))
        await self.client.update_collection_aliases(change_aliases_operations=operations)
        return previous

    @_store_call
    async def release_collections(self) -> list[str]:
        response = await self.client.get_collections()
        return sorted(c.name for c in response.collections if is_release_collection(c.name, self.prefix))

    @_store_call
    async def drop(self, collection: str, *, keep_sidecar: bool = False) -> None:
        await self.client.delete_collection(collection)
        if not keep_sidecar:
            await self.client.delete_collection(sidecar_name(collection))

    # ------------------------------------------------------------------ writing points

    @_store_call
    async def upsert_chunks(self, collection: str, release_id: str, chunks: Sequence[EmbeddedChunk]) -> None:
        points = []
        for item in chunks:
            vectors: dict[str, Any] = {DENSE_VECTOR: list(item.dense)}
            for name, sparse in split_sparse(item.sparse).items():
                vectors[name] = qm.SparseVector(indices=list(sparse.indices), values=list(sparse.values))
            points.append(qm.PointStruct(id=point_id(item.chunk.chunk_id), vector=vectors,
                                         payload=chunk_payload(item.chunk, release_id)))
        for start in range(0, len(points), self.upsert_batch):
            await self.client.upsert(collection, points=points[start:start + self.upsert_batch], wait=True)

    @_store_call
    async def count(self, collection: str) -> int:
        return int((await self.client.count(collection, exact=True)).count)

    # ------------------------------------------------------------------ sidecar: ledger, failure, manifest

    async def _sidecar_put(self, collection: str, key: str, payload: dict[str, Any]) -> None:
        await self.client.upsert(sidecar_name(collection), wait=True,
                                 points=[qm.PointStruct(id=_sidecar_id(key), vector={}, payload=payload)])

    async def _sidecar_get(self, collection: str, key: str) -> dict[str, Any] | None:
        sidecar = sidecar_name(collection)
        if not await self.exists(sidecar):
            return None
        records = await self.client.retrieve(sidecar, ids=[_sidecar_id(key)], with_payload=True)
        return dict(records[0].payload or {}) if records else None

    @_store_call
    async def record_batch(self, collection: str, entry: BatchEntry) -> None:
        await self._sidecar_put(collection, batch_key(entry), batch_record(entry))

    @_store_call
    async def ledger(self, collection: str) -> list[BatchEntry]:
        sidecar = sidecar_name(collection)
        if not await self.exists(sidecar):
            return []
        condition = qm.FieldCondition(key="kind", match=qm.MatchValue(value="batch"))
        payloads = await self._scroll_payloads(sidecar, qm.Filter(must=[condition]))
        return ledger_order([batch_entry(p) for p in payloads])

    @_store_call
    async def record_failure(self, collection: str, error: str) -> None:
        await self._ensure_sidecar(collection)
        await self._sidecar_put(collection, "failure", failure_record(error))

    @_store_call
    async def failure(self, collection: str) -> str | None:
        payload = await self._sidecar_get(collection, "failure")
        return str(payload["error"]) if payload else None

    @_store_call
    async def write_manifest(self, collection: str, manifest: ReleaseManifest) -> None:
        await self._sidecar_put(collection, "manifest", manifest_record(manifest))

    @_store_call
    async def manifest(self, collection: str) -> tuple[ReleaseManifest, str] | None:
        """The collection's manifest and when it was written, if the release passed its gates."""
        payload = await self._sidecar_get(collection, "manifest")
        return manifest_of(payload) if payload is not None else None

    @_store_call
    async def live_manifest(self) -> ReleaseManifest | None:
        collection = await self.live_collection()
        if collection is None:
            return None
        found = await self.manifest(collection)
        return found[0] if found else None

    # ------------------------------------------------------------------ reading chunks (routes)

    @_store_call
    async def scroll(self, flt: SearchFilter, *, collection: str | None = None,
                     limit: int | None = None) -> list[ChunkRecord]:
        """Every chunk matching ``flt`` (paged), in book order; ``limit`` bounds the number read."""
        payloads = await self._scroll_payloads(collection or self.alias, to_filter(flt), limit=limit)
        return book_order([chunk_from_payload(p) for p in payloads])

    @_store_call
    async def scroll_section(self, drug_id: str, section_key: SectionKey) -> list[ChunkRecord]:
        """Route A: the whole section, every part, sorted by ``part_index`` — never top-k."""
        return await self.scroll(SearchFilter(drug_ids=(drug_id,), section_keys=(section_key,)))

    @_store_call
    async def scroll_drug(self, drug_id: str, section_keys: Sequence[SectionKey] = ()) -> list[ChunkRecord]:
        """A monograph's chunks (optionally some sections only), sections in book order."""
        return await self.scroll(SearchFilter(drug_ids=(drug_id,), section_keys=tuple(section_keys)))

    @_store_call
    async def dense_search(self, vector: Sequence[float], flt: SearchFilter = ANY, *, limit: int = 10,
                           min_score: float | None = None) -> list[ScoredChunk]:
        response = await self.client.query_points(
            self.alias, query=list(vector), using=DENSE_VECTOR, query_filter=to_filter(flt), limit=limit,
            score_threshold=min_score, with_payload=True,
        )
        return _scored(response.points)

    @_store_call
    async def sparse_search(self, sparse: SparseVec, flt: SearchFilter = ANY, *, limit: int = 10,
                            min_score: float | None = None) -> list[ScoredChunk]:
        """Lexical search (BM25 weights × Qdrant IDF) in the term family of the query (see ``query_sparse``)."""
        if not sparse.indices:
            return []
        using, terms = query_sparse(sparse)
        response = await self.client.query_points(
            self.alias, query=qm.SparseVector(indices=list(terms.indices), values=list(terms.values)),
            using=using, query_filter=to_filter(flt), limit=limit, score_threshold=min_score,
            with_payload=True,
        )
        return _scored(response.points)

    @_store_call
    async def hybrid_search(self, vector: Sequence[float], sparse: SparseVec, flt: SearchFilter = ANY,
                            *, limit: int = 10, candidates: int = 50, min_dense_score: float | None = None,
                            min_sparse_score: float | None = None) -> list[ScoredChunk]:
        """Dense and sparse candidates (each with its own floor), fused by reciprocal rank (RRF)."""
        query_filter = to_filter(flt)
        prefetch = [qm.Prefetch(query=list(vector), using=DENSE_VECTOR, filter=query_filter, limit=candidates,
                                score_threshold=min_dense_score)]
        if sparse.indices:
            using, terms = query_sparse(sparse)
            prefetch.append(qm.Prefetch(
                query=qm.SparseVector(indices=list(terms.indices), values=list(terms.values)),
                using=using, filter=query_filter, limit=candidates, score_threshold=min_sparse_score))
        response = await self.client.query_points(
            self.alias, prefetch=prefetch, query=qm.FusionQuery(fusion=qm.Fusion.RRF), query_filter=query_filter,
            limit=limit, with_payload=True,
        )
        return _scored(response.points)

    @_store_call
    async def text_match(self, text: str, flt: SearchFilter = ANY, *, match: TextMatch = "phrase",
                         folded: bool | None = None, limit: int | None = None) -> list[ChunkRecord]:
        """Chunks whose text contains ``text`` as a contiguous phrase (or all its words, any order).

        Matching is on the NFC, lower-cased text; a query without diacritics
        (``folded=None`` decides from the query) matches the folded copy.
        """
        use_folded = (not has_diacritics(text)) if folded is None else folded
        field = SEARCH_TEXT_FOLDED_FIELD if use_folded else SEARCH_TEXT_FIELD
        needle = search_text_folded(text) if use_folded else search_text(text)
        if not needle:
            return []
        condition: qm.Match = qm.MatchPhrase(phrase=needle) if match == "phrase" else qm.MatchText(text=needle)
        base = to_filter(flt)
        must = [*(base.must if base is not None and isinstance(base.must, list) else []),
                qm.FieldCondition(key=field, match=condition)]
        combined = qm.Filter(must=must, must_not=base.must_not if base is not None else None)
        payloads = await self._scroll_payloads(self.alias, combined, limit=limit)
        return book_order([chunk_from_payload(p) for p in payloads])

    # ------------------------------------------------------------------ helpers

    async def _scroll_payloads(self, collection: str, flt: qm.Filter | None,
                               limit: int | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset: Any = None
        while True:
            page = _SCROLL_PAGE if limit is None else min(_SCROLL_PAGE, limit - len(out))
            if page <= 0:
                break
            records, offset = await self.client.scroll(collection, scroll_filter=flt, limit=page, offset=offset,
                                                       with_payload=True, with_vectors=False)
            out.extend(dict(r.payload or {}) for r in records)
            if offset is None:
                break
        return out


def to_filter(flt: SearchFilter) -> qm.Filter | None:
    wanted, unwanted = payload_conditions(flt)
    must: list[Any] = [qm.FieldCondition(key=k, match=qm.MatchAny(any=v)) for k, v in wanted]
    must_not: list[Any] = [qm.FieldCondition(key=k, match=qm.MatchAny(any=v)) for k, v in unwanted]
    if not must and not must_not:
        return None
    return qm.Filter(must=must or None, must_not=must_not or None)


def _scored(points: Sequence[qm.ScoredPoint]) -> list[ScoredChunk]:
    return [ScoredChunk(chunk=chunk_from_payload(p.payload), score=float(p.score)) for p in points]
