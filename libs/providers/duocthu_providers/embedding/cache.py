"""Content-addressed, append-only embedding cache (seed 003 §10.4).

Key: ``(model_id, input_kind, sha256(exact text))`` — not the chunk id (a
changed text must not reuse an old vector) and nothing else (two chunks with
identical text share one vector).  Storage: one JSON line per vector,
appended and flushed as soon as a provider batch returns, so an interrupted
run loses at most the batch in flight and the next run embeds only misses.
Memory holds only ``key -> (offset, length)``; vectors are read back from the
file on a hit.  Vectors are stored as little-endian float32 in base64, which
is exactly what the model produced (no decimal round trip).

Several processes may share one cache file: every append is one ``write`` of
a whole line under an exclusive ``flock``, and a torn last line (a crash in
the middle of a write) is cut off when the file is next opened.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding import metrics
from duocthu_providers.embedding.port import Embedder
from duocthu_runtime import get_logger

log = get_logger(__name__)

QUERY_KIND = "query"


class CacheKey(NamedTuple):
    model_id: str
    input_kind: str
    sha256: str


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def as_float32(vector: Sequence[float]) -> list[float]:
    rounded: list[float] = np.asarray(vector, dtype="<f4").tolist()
    return rounded


def cache_file_name(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("_") + ".jsonl"


class EmbeddingCache:
    """One append-only JSONL file and an in-memory offset index."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._index: dict[CacheKey, tuple[int, int]] = {}
        self.skipped_records = 0
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._file = os.fdopen(fd, "r+b", buffering=0)
        self._load()

    # ------------------------------------------------------------------ open / index

    def _load(self) -> None:
        fcntl.flock(self._file.fileno(), fcntl.LOCK_EX)
        try:
            offset = 0
            with open(self.path, "rb") as reader:
                for line in reader:
                    if not line.endswith(b"\n"):
                        break  # torn last line: the writer died mid-write
                    key = self._parse_key(line[:-1])
                    if key is None:
                        self.skipped_records += 1
                    else:
                        self._index.setdefault(key, (offset, len(line) - 1))
                    offset += len(line)
            size = os.fstat(self._file.fileno()).st_size
            if offset < size:
                log.warning("embedding_cache_torn_tail", path=str(self.path), bytes=size - offset)
                os.ftruncate(self._file.fileno(), offset)
        finally:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)

    @staticmethod
    def _parse_key(line: bytes) -> CacheKey | None:
        try:
            record = json.loads(line)
            return CacheKey(str(record["model"]), str(record["kind"]), str(record["sha256"]))
        except (ValueError, KeyError, TypeError):
            return None

    # ------------------------------------------------------------------ access

    @staticmethod
    def key(model_id: str, input_kind: str, text: str) -> CacheKey:
        return CacheKey(model_id, input_kind, text_sha256(text))

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def get(self, key: CacheKey) -> list[float] | None:
        where = self._index.get(key)
        if where is None:
            return None
        offset, length = where
        with self._lock:
            line = os.pread(self._file.fileno(), length, offset)
        try:
            record = json.loads(line)
            vector = np.frombuffer(base64.b64decode(record["vector"]), dtype="<f4")
            if len(vector) != int(record["dims"]):
                raise ValueError("dimension mismatch")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("embedding_cache_bad_record", path=str(self.path), offset=offset, error=str(exc))
            self._index.pop(key, None)
            return None
        result: list[float] = vector.tolist()
        return result

    def put_many(self, items: Iterable[tuple[CacheKey, Sequence[float]]]) -> None:
        lines: list[tuple[CacheKey, bytes]] = []
        for key, vector in items:
            if key in self._index:
                continue
            packed = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
            record = {"model": key.model_id, "kind": key.input_kind, "sha256": key.sha256,
                      "dims": len(vector), "vector": packed}
            lines.append((key, (json.dumps(record, separators=(",", ":")) + "\n").encode("ascii")))
        self._append(lines)

    def _append(self, lines: list[tuple[CacheKey, bytes]]) -> None:
        """One ``write`` of whole lines under the file lock, then index them."""
        if not lines:
            return
        blob = b"".join(line for _, line in lines)
        with self._lock:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX)
            try:
                os.write(self._file.fileno(), blob)
                end = os.lseek(self._file.fileno(), 0, os.SEEK_END)
            finally:
                fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            offset = end - len(blob)
            for key, line in lines:
                self._index.setdefault(key, (offset, len(line) - 1))
                offset += len(line)

    def merge_records(self, lines: Iterable[bytes]) -> int:
        """Append the valid records of another cache file (e.g. shipped vectors) whose keys are missing here.

        Content addressing makes this safe: a record is found only by the exact
        text it was made from, so a stale record is never hit.  A record that
        does not parse, or whose vector does not have the stated dimensions, is
        skipped.  Returns how many records were added.
        """
        fresh: list[tuple[CacheKey, bytes]] = []
        seen: set[CacheKey] = set()
        for raw in lines:
            line = raw.rstrip(b"\n")
            if not line:
                continue
            key = self._parse_key(line)
            if key is None or key in self._index or key in seen or not self._valid_vector(line):
                self.skipped_records += key is None
                continue
            fresh.append((key, line + b"\n"))
            seen.add(key)
        self._append(fresh)
        return len(fresh)

    @staticmethod
    def _valid_vector(line: bytes) -> bool:
        try:
            record = json.loads(line)
            return len(base64.b64decode(record["vector"], validate=True)) == 4 * int(record["dims"]) > 0
        except (ValueError, KeyError, TypeError):
            return False

    def records(self) -> list[bytes]:
        """Every indexed record's line (without its newline), ordered by key: the cache's content, reproducibly."""
        lines = []
        with self._lock:
            for key in sorted(self._index):
                offset, length = self._index[key]
                lines.append(os.pread(self._file.fileno(), length, offset))
        return lines

    def close(self) -> None:
        self._file.close()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    provider_seconds: float = field(default=0.0)


class CachingEmbedder:
    """An :class:`Embedder` that answers from the cache and embeds only misses.

    Misses are embedded in provider-sized batches and each batch is written to
    the cache before the next is sent, which is what makes a long run
    resumable.  Query embeddings are cached only when asked (user queries
    would otherwise be written to disk).
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache, *, cache_queries: bool = False,
                 flush_every: int | None = None) -> None:
        self.inner = inner
        self.cache = cache
        self.cache_queries = cache_queries
        self.flush_every = flush_every or int(getattr(inner, "batch_size", 32))
        self.stats = CacheStats()

    @property
    def identity(self) -> EmbeddingModel:
        return self.inner.identity

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        identity = self.inner.identity
        keys = [self.cache.key(identity.model_id, identity.input_kind, text) for text in texts]
        found: dict[CacheKey, list[float]] = {}
        todo: dict[CacheKey, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key in found or key in todo:
                continue
            vector = self.cache.get(key)
            if vector is not None and len(vector) == identity.dimensions:
                found[key] = vector
            else:
                todo[key] = text
        self.stats.hits += len(found)
        self.stats.misses += len(todo)
        metrics.CACHE_LOOKUPS.labels("passage", "hit").inc(len(found))
        metrics.CACHE_LOOKUPS.labels("passage", "miss").inc(len(todo))
        pending = list(todo.items())
        for start in range(0, len(pending), self.flush_every):
            batch = pending[start:start + self.flush_every]
            began = time.perf_counter()
            vectors = self.inner.embed_documents([text for _, text in batch])
            self.stats.provider_seconds += time.perf_counter() - began
            # Round to float32 as stored, so a miss and a later hit return identical vectors.
            fresh = [(key, as_float32(vector)) for (key, _), vector in zip(batch, vectors, strict=True)]
            self.cache.put_many(fresh)
            found.update(fresh)
        return [found[key] for key in keys]

    def embed_query(self, text: str) -> list[float]:
        if not self.cache_queries:
            return self.inner.embed_query(text)
        key = self.cache.key(self.inner.identity.model_id, QUERY_KIND, text)
        vector = self.cache.get(key)
        if vector is not None:
            metrics.CACHE_LOOKUPS.labels("query", "hit").inc()
            return vector
        metrics.CACHE_LOOKUPS.labels("query", "miss").inc()
        vector = as_float32(self.inner.embed_query(text))
        self.cache.put_many([(key, vector)])
        return vector
