"""The release manifest and the startup gate that compares it with the query embedder.

A query vector from another model, another dimension or another input kind
still returns nearest neighbours, just meaningless ones (seed 003 §10.1), so
a replica serves only when the live manifest names exactly its vector space.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts.corpus import EmbeddingModel, ReleaseManifest


@dataclass(frozen=True)
class ManifestCheck:
    ok: bool
    detail: str


def build_manifest(*, release_id: str, collection: str, model: EmbeddingModel, corpus_sha256: str,
                   source_sha256: str, chunk_count: int) -> ReleaseManifest:
    return ReleaseManifest(
        release_id=release_id,
        corpus_sha256=corpus_sha256,
        chunk_count=chunk_count,
        model_id=model.model_id,
        dimensions=model.dimensions,
        input_kind=model.input_kind,
        provider=model.provider,
        distance=model.distance,
        sparse_model=model.sparse_model,
        source_sha256=source_sha256,
        collection=collection,
    )


def check_manifest(manifest: ReleaseManifest | None, query: EmbeddingModel) -> ManifestCheck:
    if manifest is None:
        return ManifestCheck(False, "no live index: the live alias or its manifest is missing")
    expected = {
        "model_id": (manifest.model_id, query.model_id),
        "dimensions": (manifest.dimensions, query.dimensions),
        "input_kind": (manifest.input_kind, query.input_kind),
        "distance": (manifest.distance, query.distance),
        "sparse_model": (manifest.sparse_model, query.sparse_model),
    }
    wrong = [f"{name} {have!r} != {want!r}" for name, (have, want) in expected.items() if have != want]
    if wrong:
        return ManifestCheck(False, f"live release {manifest.release_id} does not match the query embedder: "
                                    + "; ".join(wrong))
    return ManifestCheck(True, f"live release {manifest.release_id} ({manifest.chunk_count} chunks, "
                               f"{manifest.model_id}/{manifest.dimensions})")
