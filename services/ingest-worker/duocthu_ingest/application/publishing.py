"""The last two steps of a job: embed the chunks, then cut them into corpus batch messages.

Embedding is one step at the end: the parse is gated first and only a
released parse is embedded.  Batches are cut by size (JSON bytes), not by
count, so one message stays well under NATS' max_payload whatever the model
dimension; the part's catalog rides on batch 0.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from duocthu_contracts.corpus import ChunkRecord, DrugCatalog, EmbeddedChunk, EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusBatchEmbeddedPayload
from duocthu_providers.embedding.inputs import embed_chunks as embed_with_recipe
from duocthu_providers.embedding.port import Embedder
from duocthu_runtime import new_message
from duocthu_text.sparse import SparseEncoder

_BATCH_NS = uuid.UUID("0b7c54f2-8d57-4f0e-9a53-1f3f8f3a6e21")
ENVELOPE_ALLOWANCE = 4_096  # bytes for the envelope and payload fields around the chunks


def embed_chunks(chunks: Sequence[ChunkRecord], embedder: Embedder, sparse: SparseEncoder, *, batch: int = 64,
                 progress: Callable[[int], None] | None = None) -> list[EmbeddedChunk]:
    """Dense and sparse vectors in groups of ``batch``, through the one document-side input recipe.

    The recipe (:func:`duocthu_providers.embedding.inputs.embed_chunks`) is part of
    the vector-space identity stamped on every batch; embedding anything else
    here would make the manifest lie.
    """
    out: list[EmbeddedChunk] = []
    for start in range(0, len(chunks), batch):
        out.extend(embed_with_recipe(chunks[start:start + batch], embedder, sparse))
        if progress is not None:
            progress(len(out))
    return out


def cut_batches(embedded: Sequence[EmbeddedChunk], max_bytes: int, first_extra: int) -> list[list[EmbeddedChunk]]:
    """Consecutive groups whose JSON stays under ``max_bytes`` (batch 0 also carries ``first_extra`` bytes)."""
    batches: list[list[EmbeddedChunk]] = [[]]
    size = ENVELOPE_ALLOWANCE + first_extra
    for item in embedded:
        item_size = len(item.model_dump_json()) + 2
        if batches[-1] and size + item_size > max_bytes:
            batches.append([])
            size = ENVELOPE_ALLOWANCE
        batches[-1].append(item)
        size += item_size
    return batches


def batch_messages(embedded: Sequence[EmbeddedChunk], *, catalog: DrugCatalog, model: EmbeddingModel,
                   release_id: str, job_id: str, part_index: int, part_count: int, corpus_sha256: str,
                   source_sha256: str, max_bytes: int, correlation_id: str,
                   causation_id: str | None) -> list[CorpusBatchEmbedded]:
    """The part as batch messages; ids are derived from (release, part, batch) so a redelivered job de-duplicates."""
    groups = cut_batches(embedded, max_bytes, len(catalog.model_dump_json()))
    messages: list[CorpusBatchEmbedded] = []
    for index, group in enumerate(groups):
        payload = CorpusBatchEmbeddedPayload(
            release_id=release_id, job_id=job_id, part_index=part_index, part_count=part_count, batch_index=index,
            batch_count=len(groups), part_chunk_count=len(embedded), corpus_sha256=corpus_sha256,
            source_sha256=source_sha256, model=model, chunks=group, catalog=catalog if index == 0 else None,
        )
        message_id = uuid.uuid5(_BATCH_NS, f"{release_id}/{part_index}/{index}/{corpus_sha256}").hex
        messages.append(new_message(CorpusBatchEmbedded, payload, correlation_id=correlation_id,
                                    causation_id=causation_id, message_id=message_id))
    return messages
