"""The sidecar's records as plain JSON objects, shared by both index adapters.

A release's sidecar holds its batch ledger, its failure and its manifest.
The Qdrant-server adapter keeps them as payloads of a vector-less collection,
the Edge adapter as JSON files beside the shard; both write and read the
same shapes, so a ledger means the same thing whichever store holds it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from duocthu_contracts.corpus import DrugCatalog, EmbeddingModel, ReleaseManifest
from duocthu_retrieval.domain.release import BatchEntry


def now() -> str:
    return datetime.now(UTC).isoformat()


def batch_key(entry: BatchEntry) -> str:
    return f"batch/{entry.part_index}/{entry.batch_index}"


def batch_record(entry: BatchEntry) -> dict[str, Any]:
    return {
        "kind": "batch", "part_index": entry.part_index, "part_count": entry.part_count,
        "batch_index": entry.batch_index, "batch_count": entry.batch_count,
        "part_chunk_count": entry.part_chunk_count, "chunk_count": entry.chunk_count,
        "corpus_sha256": entry.corpus_sha256, "source_sha256": entry.source_sha256,
        "model": entry.model.model_dump(mode="json"),
        "catalog": entry.catalog.model_dump(mode="json") if entry.catalog is not None else None,
        "at": now(),
    }


def batch_entry(record: dict[str, Any]) -> BatchEntry:
    catalog = record.get("catalog")
    return BatchEntry(
        part_index=int(record["part_index"]), part_count=int(record["part_count"]),
        batch_index=int(record["batch_index"]), batch_count=int(record["batch_count"]),
        part_chunk_count=int(record["part_chunk_count"]), chunk_count=int(record["chunk_count"]),
        corpus_sha256=str(record["corpus_sha256"]), source_sha256=str(record["source_sha256"]),
        model=EmbeddingModel.model_validate(record["model"]),
        catalog=DrugCatalog.model_validate(catalog) if catalog else None,
    )


def ledger_order(entries: list[BatchEntry]) -> list[BatchEntry]:
    return sorted(entries, key=lambda e: (e.part_index, e.batch_index))


def failure_record(error: str) -> dict[str, Any]:
    return {"kind": "failure", "error": error, "at": now()}


def manifest_record(manifest: ReleaseManifest) -> dict[str, Any]:
    return {"kind": "manifest", "manifest": manifest.model_dump(mode="json"), "indexed_at": now()}


def manifest_of(record: dict[str, Any]) -> tuple[ReleaseManifest, str]:
    return ReleaseManifest.model_validate(record["manifest"]), str(record.get("indexed_at", ""))
