"""When is a release complete, and is it consistent?  Pure rules over the batch ledger.

Batches of a release arrive in any order, may be redelivered, and may be
indexed by different replicas, so completion is decided from a ledger kept
in the index (one entry per ``(part, batch)``), never from process memory.
A release is complete when every part announced by ``part_count`` has all
``batch_count`` batches; its size is the sum of the parts' announced
``part_chunk_count``, which the count gate then compares with the collection.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from duocthu_contracts.corpus import Alias, CatalogEntry, DrugCatalog, EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbeddedPayload
from duocthu_retrieval.errors import ReleaseRejected


@dataclass(frozen=True)
class BatchEntry:
    """What the ledger remembers of one received batch."""

    part_index: int
    part_count: int
    batch_index: int
    batch_count: int
    part_chunk_count: int
    chunk_count: int
    corpus_sha256: str
    source_sha256: str
    model: EmbeddingModel
    catalog: DrugCatalog | None = None

    @classmethod
    def of(cls, batch: CorpusBatchEmbeddedPayload) -> BatchEntry:
        return cls(
            part_index=batch.part_index, part_count=batch.part_count, batch_index=batch.batch_index,
            batch_count=batch.batch_count, part_chunk_count=batch.part_chunk_count, chunk_count=len(batch.chunks),
            corpus_sha256=batch.corpus_sha256, source_sha256=batch.source_sha256, model=batch.model,
            catalog=batch.catalog,
        )


@dataclass(frozen=True)
class ReleaseProgress:
    complete: bool
    expected_chunks: int = 0
    received_batches: int = 0
    missing: tuple[str, ...] = field(default=())


def validate_batch(batch: CorpusBatchEmbeddedPayload) -> None:
    """Reject a batch whose content cannot be indexed as announced."""
    where = f"release {batch.release_id} part {batch.part_index} batch {batch.batch_index}"
    if batch.part_index >= batch.part_count:
        raise ReleaseRejected(f"{where}: part_index {batch.part_index} >= part_count {batch.part_count}")
    if batch.batch_index >= batch.batch_count:
        raise ReleaseRejected(f"{where}: batch_index {batch.batch_index} >= batch_count {batch.batch_count}")
    if len(batch.chunks) > batch.part_chunk_count:
        raise ReleaseRejected(f"{where}: {len(batch.chunks)} chunks but the part announces {batch.part_chunk_count}")
    dims = batch.model.dimensions
    seen: set[str] = set()
    for embedded in batch.chunks:
        chunk = embedded.chunk
        if chunk.chunk_id in seen:
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} appears twice")
        seen.add(chunk.chunk_id)
        if len(embedded.dense) != dims:
            raise ReleaseRejected(
                f"{where}: chunk {chunk.chunk_id} has a {len(embedded.dense)}-d vector, the model has {dims}"
            )
        if not all(math.isfinite(v) for v in embedded.dense):
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} has a non-finite vector component")
        sparse = embedded.sparse
        if len(sparse.indices) != len(sparse.values) or len(set(sparse.indices)) != len(sparse.indices):
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} has a malformed sparse vector")
        if any(not 0 <= i < 2**32 for i in sparse.indices):
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} has a sparse index outside u32")
        if chunk.printed_page_range[0] < 1 or chunk.printed_page_range[0] > chunk.printed_page_range[1]:
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} has no valid printed page range")
        if chunk.source_page_range[0] > chunk.source_page_range[1]:
            raise ReleaseRejected(f"{where}: chunk {chunk.chunk_id} has an inverted source page range")


def check_consistent(entries: Iterable[BatchEntry], new: BatchEntry, release_id: str) -> None:
    """A new batch must agree with what the ledger already holds for its release."""
    for old in entries:
        if old.model != new.model:
            raise ReleaseRejected(
                f"release {release_id}: batches embedded with different models "
                f"({old.model.model_id}/{old.model.dimensions} vs {new.model.model_id}/{new.model.dimensions})"
            )
        if old.part_count != new.part_count:
            raise ReleaseRejected(f"release {release_id}: part_count {old.part_count} vs {new.part_count}")
        if old.source_sha256 != new.source_sha256:
            raise ReleaseRejected(f"release {release_id}: batches come from different source documents")
        if old.part_index == new.part_index:
            same = (old.batch_count, old.part_chunk_count, old.corpus_sha256)
            if same != (new.batch_count, new.part_chunk_count, new.corpus_sha256):
                raise ReleaseRejected(
                    f"release {release_id} part {new.part_index}: batches disagree on batch_count, "
                    "part_chunk_count or corpus_sha256"
                )
            if old.batch_index == new.batch_index and old.chunk_count != new.chunk_count:
                raise ReleaseRejected(
                    f"release {release_id} part {new.part_index} batch {new.batch_index} was delivered twice "
                    "with different content"
                )


def assess(entries: Sequence[BatchEntry]) -> ReleaseProgress:
    if not entries:
        return ReleaseProgress(complete=False, missing=("every batch",))
    part_count = entries[0].part_count
    by_part: dict[int, dict[int, BatchEntry]] = {}
    for entry in entries:
        by_part.setdefault(entry.part_index, {})[entry.batch_index] = entry
    missing: list[str] = []
    expected = 0
    for part in range(part_count):
        batches = by_part.get(part)
        if not batches:
            missing.append(f"part {part}")
            continue
        any_entry = next(iter(batches.values()))
        expected += any_entry.part_chunk_count
        absent = [b for b in range(any_entry.batch_count) if b not in batches]
        missing.extend(f"part {part} batch {b}" for b in absent)
    received = sum(len(b) for b in by_part.values())
    if missing:
        return ReleaseProgress(complete=False, received_batches=received, missing=tuple(missing))
    announced = sum(e.chunk_count for part in by_part.values() for e in part.values())
    if announced != expected:
        raise ReleaseRejected(f"batches hold {announced} chunks but the parts announce {expected}")
    if expected == 0:
        raise ReleaseRejected("the release holds no chunks")
    return ReleaseProgress(complete=True, expected_chunks=expected, received_batches=received)


def release_corpus_sha256(entries: Iterable[BatchEntry]) -> str:
    """The release's corpus hash: the part's own hash for one part, else a hash over the parts' hashes."""
    parts = sorted({(e.part_index, e.corpus_sha256) for e in entries})
    if len(parts) == 1:
        return parts[0][1]
    joined = "\n".join(f"{index}:{sha}" for index, sha in parts)
    return hashlib.sha256(joined.encode("ascii")).hexdigest()


def _union(*lists: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for items in lists for item in items))


def _merge_entry(a: CatalogEntry, b: CatalogEntry) -> CatalogEntry:
    aliases = list({(alias.text, alias.kind): alias for alias in [*a.aliases, *b.aliases]}.values())
    pages = [r for r in (a.printed_page_range, b.printed_page_range) if r is not None]
    return CatalogEntry(
        drug_id=a.drug_id,
        drug_name=a.drug_name or b.drug_name,
        aliases=[Alias(text=x.text, kind=x.kind) for x in aliases],
        atc_codes=_union(a.atc_codes, b.atc_codes),
        section_keys=list(dict.fromkeys([*a.section_keys, *b.section_keys])),
        dosage_labels=_union(a.dosage_labels, b.dosage_labels),
        printed_page_range=(min(p[0] for p in pages), max(p[1] for p in pages)) if pages else None,
    )


def merge_catalogs(entries: Iterable[BatchEntry], corpus_sha256: str) -> DrugCatalog:
    """One catalog for the release from the parts' catalogs (a monograph split by a page range is merged)."""
    catalogs = [e.catalog for e in sorted(entries, key=lambda e: e.part_index) if e.catalog is not None]
    merged: dict[str, CatalogEntry] = {}
    for catalog in catalogs:
        for entry in catalog.entries:
            merged[entry.drug_id] = _merge_entry(merged[entry.drug_id], entry) if entry.drug_id in merged else entry
    return DrugCatalog(
        corpus_sha256=corpus_sha256,
        entries=list(merged.values()),
        unresolved_aliases=_union(*(c.unresolved_aliases for c in catalogs)),
        ambiguous_aliases=_union(*(c.ambiguous_aliases for c in catalogs)),
    )
