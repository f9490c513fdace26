"""The Qdrant Edge adapter: the embedded index, Qdrant's engine running inside the retrieval process.

Why Edge and not qdrant-client's local mode: local mode evaluates filters
and sparse products in Python over every point (a hybrid query at the full
book's ≈15,000 chunks took about a second); Edge is the Rust engine with
HNSW, payload indexes and an inverted sparse index, in-process.

Layout under the index directory (``$VAR_DIR/edge`` by default):

* ``<collection>/`` — one Edge shard per release (and per rebuild); named
  vectors ``dense`` + two IDF sparse vectors, a payload index on every field
  a route filters on, and a phrase-matching text index on both normalised
  copies of the text;
* ``<collection>__manifest/`` — its sidecar: one JSON file per ledger entry,
  plus the failure and the manifest, each written to a temporary file and
  renamed into place;
* ``LIVE`` — the name of the live release, replaced by rename: the switch is
  atomic, a reader (or a restart) sees the old release or the new one;
* ``.lock`` — held (``flock``) by the one process that opens the directory.

It implements :class:`duocthu_retrieval.ports.VectorIndex`; the engine's
errors (it raises plain ``Exception``) and file-system errors leave as
:class:`IndexUnavailable`.  Reads run on the event loop (they take a
millisecond or two); writes and the segment optimiser run in a worker thread.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import qdrant_edge as qe

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

T = TypeVar("T")

LIVE_FILE = "LIVE"
LOCK_FILE = ".lock"
_DISTANCES = {"Cosine": qe.Distance.Cosine, "Dot": qe.Distance.Dot, "Euclid": qe.Distance.Euclid}
#: Qdrant's reciprocal-rank constant (score = Σ 1 / (k + rank)); the server's and local mode's default.
RRF_K = 2
_SCROLL_PAGE = 512


def _unavailable(index: EdgeIndex, exc: BaseException) -> IndexUnavailable:
    return IndexUnavailable(f"Qdrant Edge at {index.where}: {type(exc).__name__}: {exc}")


#: File-system failures of the directory, the sidecar or the pointer file.
_store_call = translating((OSError, ValueError), _unavailable)


class EdgeIndex:
    """Release shards under one directory, opened by one process."""

    def __init__(self, root: Path, *, prefix: str, upsert_batch: int = 256, lock: IO[str] | None = None) -> None:
        self.root = root
        self.prefix = prefix
        self.upsert_batch = upsert_batch
        self.where = str(root)
        self._lock = lock
        self._shards: dict[str, qe.EdgeShard] = {}
        #: The vector space (dimensions, distance) each shard was created or verified for in this process.
        self._spaces: dict[str, tuple[int, str]] = {}
        self._live: str | None = self._read_live()

    @classmethod
    def open(cls, settings: IndexSettings) -> EdgeIndex:
        """Open (and lock) the index directory; a second process gets :class:`IndexUnavailable`."""
        root = settings.edge_path()
        root.mkdir(parents=True, exist_ok=True)
        lock = open(root / LOCK_FILE, "a")  # noqa: SIM115 - held for the life of the index
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            lock.close()
            raise IndexUnavailable(
                f"the index directory {root} is in use by another process (the retrieval service?); "
                "go through the running service or stop it first"
            ) from exc
        return cls(root, prefix=settings.index_collection_prefix, upsert_batch=settings.index_upsert_batch,
                   lock=lock)

    async def close(self) -> None:
        for shard in self._shards.values():
            self._engine(shard.close)
        self._shards.clear()
        self._spaces.clear()
        if self._lock is not None:
            self._lock.close()  # releases the flock
            self._lock = None

    # ------------------------------------------------------------------ the engine

    def _engine(self, call: Callable[[], T]) -> T:
        """Run one engine call; its errors (plain ``Exception``) leave as :class:`IndexUnavailable`."""
        try:
            return call()
        except (IndexUnavailable, IndexConflict):
            raise
        except Exception as exc:  # the Rust binding raises bare Exception for every engine error
            raise _unavailable(self, exc) from exc

    async def _engine_in_thread(self, call: Callable[[], T]) -> T:
        return await asyncio.to_thread(self._engine, call)

    def _shard(self, collection: str) -> qe.EdgeShard:
        shard = self._shards.get(collection)
        if shard is None:
            path = self.root / collection
            if not (path / "edge_config.json").exists():
                raise IndexUnavailable(f"Qdrant Edge at {self.where}: no collection {collection}")
            shard = self._shards[collection] = self._engine(lambda: qe.EdgeShard.load(str(path)))
        return shard

    def _live_shard(self) -> qe.EdgeShard:
        if self._live is None:
            raise IndexUnavailable(f"Qdrant Edge at {self.where}: no live release")
        return self._shard(self._live)

    # ------------------------------------------------------------------ collections and the live pointer

    def _read_live(self) -> str | None:
        try:
            name = (self.root / LIVE_FILE).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return name or None

    @_store_call
    async def exists(self, collection: str) -> bool:
        return (self.root / collection / "edge_config.json").exists()

    @_store_call
    async def live_collection(self) -> str | None:
        return self._live

    @_store_call
    async def ensure_release_collection(self, collection: str, model: EmbeddingModel) -> None:
        """Create the shard for ``model``'s vector space, or verify it (``IndexConflict`` if it differs)."""
        config = qe.EdgeConfig(
            vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=model.dimensions, distance=_DISTANCES[model.distance])},
            sparse_vectors={name: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)
                            for name in (SPARSE_VECTOR, SPARSE_FOLDED_VECTOR)},
        )
        path = self.root / collection
        space = (model.dimensions, str(model.distance))
        if (known := self._spaces.get(collection)) is not None:  # only ever set beside an open shard
            # Already created or verified here: compare, never reopen. Reopening closed the shard under a
            # write of a batch applied beside this one ("Shard is not initialized" in a full run).
            if known != space:
                raise IndexConflict(f"collection {collection} holds {known[0]}-d {known[1]} vectors, "
                                    f"not {model.dimensions}-d {model.distance}")
            return
        if await self.exists(collection):
            self._close_shard(collection)
            try:
                self._shards[collection] = qe.EdgeShard.load(str(path), config)
            except Exception as exc:  # the engine: an incompatible configuration
                raise IndexConflict(f"collection {collection} exists without a {model.dimensions}-d dense vector "
                                    f"and the two sparse vectors: {exc}") from exc
        else:
            self._shards[collection] = self._engine(lambda: qe.EdgeShard.create(str(path), config))
        self._spaces[collection] = space
        (self.root / sidecar_name(collection)).mkdir(exist_ok=True)

    @_store_call
    async def create_payload_indexes(self, collection: str) -> None:
        """A payload index on every filtered field and phrase-matching text indexes; then optimise (HNSW)."""
        schemas: list[tuple[str, Any]] = [(name, qe.PayloadSchemaType.Keyword) for name in KEYWORD_INDEXES]
        schemas += [(name, qe.PayloadSchemaType.Integer) for name in INTEGER_INDEXES]
        schemas += [(name, qe.TextIndexParams(tokenizer=qe.TokenizerType.Word, lowercase=True,
                                              phrase_matching=True)) for name in TEXT_INDEXES]
        shard = self._shard(collection)

        def build() -> None:
            for name, schema in schemas:
                shard.update(qe.UpdateOperation.create_field_index(name, schema))
            shard.optimize()
            shard.flush()

        await self._engine_in_thread(build)

    @_store_call
    async def switch_alias(self, collection: str) -> str | None:
        """Replace the ``LIVE`` pointer by rename (atomic); returns the previous live release."""
        if not await self.exists(collection):
            raise IndexUnavailable(f"Qdrant Edge at {self.where}: no collection {collection} to switch to")
        previous = self._live
        self._write_atomic(self.root / LIVE_FILE, collection)
        self._live = collection
        return previous

    @_store_call
    async def release_collections(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir()
                      if p.is_dir() and is_release_collection(p.name, self.prefix))

    @_store_call
    async def drop(self, collection: str, *, keep_sidecar: bool = False) -> None:
        self._close_shard(collection)
        shutil.rmtree(self.root / collection, ignore_errors=True)
        if not keep_sidecar:
            shutil.rmtree(self.root / sidecar_name(collection), ignore_errors=True)

    def _close_shard(self, collection: str) -> None:
        self._spaces.pop(collection, None)
        shard = self._shards.pop(collection, None)
        if shard is not None:
            self._engine(shard.close)

    # ------------------------------------------------------------------ writing points

    @_store_call
    async def upsert_chunks(self, collection: str, release_id: str, chunks: Sequence[EmbeddedChunk]) -> None:
        shard = self._shard(collection)
        points = []
        for item in chunks:
            vectors: dict[str, Any] = {DENSE_VECTOR: list(item.dense)}
            for name, sparse in split_sparse(item.sparse).items():
                vectors[name] = qe.SparseVector(indices=list(sparse.indices), values=list(sparse.values))
            points.append(qe.Point(id=point_id(item.chunk.chunk_id), vector=vectors,
                                   payload=chunk_payload(item.chunk, release_id)))

        def write() -> None:
            for start in range(0, len(points), self.upsert_batch):
                shard.update(qe.UpdateOperation.upsert_points(points[start:start + self.upsert_batch]))
            shard.flush()

        await self._engine_in_thread(write)

    @_store_call
    async def count(self, collection: str) -> int:
        shard = self._shard(collection)
        return int(self._engine(lambda: shard.count(qe.CountRequest(exact=True))))

    # ------------------------------------------------------------------ sidecar: ledger, failure, manifest

    def _sidecar_dir(self, collection: str) -> Path:
        return self.root / sidecar_name(collection)

    @staticmethod
    def _write_atomic(path: Path, text: str) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    def _sidecar_put(self, collection: str, key: str, record: dict[str, Any]) -> None:
        directory = self._sidecar_dir(collection)
        directory.mkdir(parents=True, exist_ok=True)
        self._write_atomic(directory / f"{key.replace('/', '_')}.json", json.dumps(record, ensure_ascii=False))

    def _sidecar_get(self, collection: str, key: str) -> dict[str, Any] | None:
        try:
            text = (self._sidecar_dir(collection) / f"{key}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        return dict(json.loads(text))

    @_store_call
    async def record_batch(self, collection: str, entry: BatchEntry) -> None:
        self._sidecar_put(collection, batch_key(entry), batch_record(entry))

    @_store_call
    async def ledger(self, collection: str) -> list[BatchEntry]:
        directory = self._sidecar_dir(collection)
        if not directory.is_dir():
            return []
        return ledger_order([batch_entry(json.loads(p.read_text(encoding="utf-8")))
                             for p in directory.glob("batch_*.json")])

    @_store_call
    async def record_failure(self, collection: str, error: str) -> None:
        self._sidecar_put(collection, "failure", failure_record(error))

    @_store_call
    async def failure(self, collection: str) -> str | None:
        record = self._sidecar_get(collection, "failure")
        return str(record["error"]) if record else None

    @_store_call
    async def write_manifest(self, collection: str, manifest: ReleaseManifest) -> None:
        self._sidecar_put(collection, "manifest", manifest_record(manifest))

    @_store_call
    async def manifest(self, collection: str) -> tuple[ReleaseManifest, str] | None:
        record = self._sidecar_get(collection, "manifest")
        return manifest_of(record) if record is not None else None

    @_store_call
    async def live_manifest(self) -> ReleaseManifest | None:
        if self._live is None:
            return None
        found = await self.manifest(self._live)
        return found[0] if found else None

    # ------------------------------------------------------------------ reading chunks (routes)

    @_store_call
    async def scroll(self, flt: SearchFilter, *, collection: str | None = None,
                     limit: int | None = None) -> list[ChunkRecord]:
        """Every chunk matching ``flt`` (paged), in book order; ``limit`` bounds the number read."""
        shard = self._shard(collection) if collection else self._live_shard()
        return book_order([chunk_from_payload(p) for p in self._scroll_payloads(shard, to_filter(flt), limit)])

    @_store_call
    async def scroll_section(self, drug_id: str, section_key: SectionKey) -> list[ChunkRecord]:
        """Route A: the whole section, every part, sorted by ``part_index`` — never top-k."""
        return await self.scroll(SearchFilter(drug_ids=(drug_id,), section_keys=(section_key,)))

    @_store_call
    async def scroll_drug(self, drug_id: str, section_keys: Sequence[SectionKey] = ()) -> list[ChunkRecord]:
        return await self.scroll(SearchFilter(drug_ids=(drug_id,), section_keys=tuple(section_keys)))

    @_store_call
    async def dense_search(self, vector: Sequence[float], flt: SearchFilter = ANY, *, limit: int = 10,
                           min_score: float | None = None) -> list[ScoredChunk]:
        request = qe.QueryRequest(limit=limit, query=qe.Query.Nearest(list(vector), using=DENSE_VECTOR),
                                  filter=to_filter(flt), score_threshold=min_score, with_payload=True)
        return self._query(request)

    @_store_call
    async def sparse_search(self, sparse: SparseVec, flt: SearchFilter = ANY, *, limit: int = 10,
                            min_score: float | None = None) -> list[ScoredChunk]:
        """Lexical search (BM25 weights × IDF) in the term family of the query (see ``query_sparse``)."""
        if not sparse.indices:
            return []
        using, terms = query_sparse(sparse)
        request = qe.QueryRequest(limit=limit, query=qe.Query.Nearest(_sparse(terms), using=using),
                                  filter=to_filter(flt), score_threshold=min_score, with_payload=True)
        return self._query(request)

    @_store_call
    async def hybrid_search(self, vector: Sequence[float], sparse: SparseVec, flt: SearchFilter = ANY,
                            *, limit: int = 10, candidates: int = 50, min_dense_score: float | None = None,
                            min_sparse_score: float | None = None) -> list[ScoredChunk]:
        """Dense and sparse candidates (each with its own floor), fused by reciprocal rank (RRF)."""
        query_filter = to_filter(flt)
        prefetch = [qe.Prefetch(limit=candidates, query=qe.Query.Nearest(list(vector), using=DENSE_VECTOR),
                                filter=query_filter, score_threshold=min_dense_score)]
        if sparse.indices:
            using, terms = query_sparse(sparse)
            prefetch.append(qe.Prefetch(limit=candidates, query=qe.Query.Nearest(_sparse(terms), using=using),
                                        filter=query_filter, score_threshold=min_sparse_score))
        fusion: Any = qe.Fusion.Rrf(k=RRF_K)  # the stub types Fusion, not its Rrf member
        request = qe.QueryRequest(limit=limit, prefetches=prefetch, query=fusion,
                                  filter=query_filter, with_payload=True)
        return self._query(request)

    @_store_call
    async def text_match(self, text: str, flt: SearchFilter = ANY, *, match: TextMatch = "phrase",
                         folded: bool | None = None, limit: int | None = None) -> list[ChunkRecord]:
        """Chunks whose normalised text contains ``text`` as a phrase (or all its words, any order)."""
        use_folded = (not has_diacritics(text)) if folded is None else folded
        field = SEARCH_TEXT_FOLDED_FIELD if use_folded else SEARCH_TEXT_FIELD
        needle = search_text_folded(text) if use_folded else search_text(text)
        if not needle:
            return []
        condition: Any = qe.MatchPhrase(phrase=needle) if match == "phrase" else qe.MatchText(text=needle)
        combined = to_filter(flt, extra=[qe.FieldCondition(key=field, match=condition)])
        payloads = self._scroll_payloads(self._live_shard(), combined, limit)
        return book_order([chunk_from_payload(p) for p in payloads])

    # ------------------------------------------------------------------ helpers

    def _query(self, request: qe.QueryRequest) -> list[ScoredChunk]:
        shard = self._live_shard()
        points = self._engine(lambda: shard.query(request))
        return [ScoredChunk(chunk=chunk_from_payload(p.payload), score=float(p.score)) for p in points]

    def _scroll_payloads(self, shard: qe.EdgeShard, flt: qe.Filter | None,
                         limit: int | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset: Any = None
        while True:
            page = _SCROLL_PAGE if limit is None else min(_SCROLL_PAGE, limit - len(out))
            if page <= 0:
                break
            request = qe.ScrollRequest(offset=offset, limit=page, filter=flt, with_payload=True, with_vector=False)
            records, offset = self._engine(lambda r=request: shard.scroll(r))  # type: ignore[misc]
            out.extend(dict(r.payload or {}) for r in records)
            if offset is None:
                break
        return out


def _sparse(vector: SparseVec) -> qe.SparseVector:
    return qe.SparseVector(indices=list(vector.indices), values=list(vector.values))


def to_filter(flt: SearchFilter, extra: Sequence[Any] = ()) -> qe.Filter | None:
    """The route's payload conditions as an Edge filter (``None``: every point)."""
    wanted, unwanted = payload_conditions(flt)
    must: list[Any] = [*extra, *(qe.FieldCondition(key=k, match=qe.MatchAny(any=v)) for k, v in wanted)]
    must_not: list[Any] = [qe.FieldCondition(key=k, match=qe.MatchAny(any=v)) for k, v in unwanted]
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)
