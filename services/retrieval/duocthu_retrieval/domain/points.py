"""How a chunk becomes a Qdrant point, and back.

The point id is a UUID5 of the chunk id under a fixed namespace (seed 003
§11.2): re-indexing the same corpus overwrites the same points instead of
duplicating them, whichever replica or replay writes them.  The payload is
the whole chunk record (provenance must survive the stage boundary) plus
two normalised copies of the text for phrase matching: diacritics kept, and
folded for queries typed without diacritics.
"""

from __future__ import annotations

import uuid
from typing import Any

from duocthu_contracts.corpus import ChunkRecord, SparseVector
from duocthu_retrieval.domain.search import SearchFilter
from duocthu_text.sparse import is_folded
from duocthu_text.vietnamese import casefold_keep_marks, fold, normalize_whitespace

POINT_NAMESPACE = uuid.UUID("0b7c7d55-3f0e-5d0c-9a59-6475f3b1c0de")

DENSE_VECTOR = "dense"
#: The sparse encoder's two term families live in two vectors (a query uses one): diacritics kept / folded.
SPARSE_VECTOR = "sparse"
SPARSE_FOLDED_VECTOR = "sparse_folded"

RELEASE_FIELD = "release_id"
SEARCH_TEXT_FIELD = "search_text"
SEARCH_TEXT_FOLDED_FIELD = "search_text_folded"

#: Whether a point carries quarantined content, as a keyword: Qdrant Edge (qdrant-edge-py 0.9) stores a
#: Python ``True`` payload value as the integer 1, so a bool match never excluded anything there; a keyword
#: filters the same way in every adapter.
QUARANTINE_FIELD = "quarantine_state"
QUARANTINED = "quarantined"
CLEAN = "clean"

#: Payload indexes of seed 003 §11.1 (keyword), plus the phrase-matching text fields.
KEYWORD_INDEXES = ("chunk_id", "drug_id", "section_key", "atc_codes", "chunk_kind", QUARANTINE_FIELD)
INTEGER_INDEXES = ("part_index",)
TEXT_INDEXES = (SEARCH_TEXT_FIELD, SEARCH_TEXT_FOLDED_FIELD)


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, chunk_id))


def search_text(text: str) -> str:
    return casefold_keep_marks(normalize_whitespace(text))


def search_text_folded(text: str) -> str:
    return fold(normalize_whitespace(text))


def chunk_payload(chunk: ChunkRecord, release_id: str) -> dict[str, Any]:
    payload = chunk.model_dump(mode="json")
    payload[RELEASE_FIELD] = release_id
    payload[SEARCH_TEXT_FIELD] = search_text(chunk.text)
    payload[SEARCH_TEXT_FOLDED_FIELD] = search_text_folded(chunk.text)
    payload[QUARANTINE_FIELD] = QUARANTINED if chunk.has_quarantined_content else CLEAN
    return payload


def chunk_from_payload(payload: dict[str, Any] | None) -> ChunkRecord:
    """The chunk record of a point (extra payload fields are ignored by the model)."""
    if not payload:
        raise ValueError("point has no payload")
    return ChunkRecord.model_validate(payload)


def split_sparse(vector: SparseVector) -> dict[str, SparseVector]:
    """A document's sparse vector as the index stores it: one named vector per term family."""
    exact = [(i, v) for i, v in zip(vector.indices, vector.values, strict=True) if not is_folded(i)]
    folded = [(i, v) for i, v in zip(vector.indices, vector.values, strict=True) if is_folded(i)]
    return {name: SparseVector(indices=[i for i, _ in pairs], values=[v for _, v in pairs])
            for name, pairs in ((SPARSE_VECTOR, exact), (SPARSE_FOLDED_VECTOR, folded)) if pairs}


def query_sparse(vector: SparseVector) -> tuple[str, SparseVector]:
    """Which stored vector a query searches: the folded one when all its terms are folded, else the exact one."""
    exact = [(i, v) for i, v in zip(vector.indices, vector.values, strict=True) if not is_folded(i)]
    if exact:
        return SPARSE_VECTOR, SparseVector(indices=[i for i, _ in exact], values=[v for _, v in exact])
    return SPARSE_FOLDED_VECTOR, vector


def payload_conditions(flt: SearchFilter) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """A route's filter as (must, must_not) lists of "the payload field holds one of these values".

    Both index adapters translate these into their engine's conditions, so a route filters the same way
    on Qdrant Edge and on a Qdrant server.
    """
    must = [(key, [str(v) for v in values]) for key, values in (
        ("drug_id", flt.drug_ids), ("section_key", flt.section_keys), ("chunk_kind", flt.chunk_kinds),
        ("atc_codes", flt.atc_codes)) if values]
    must_not = [("section_key", [str(k) for k in flt.exclude_section_keys])] if flt.exclude_section_keys else []
    if flt.exclude_quarantined:
        must_not.append((QUARANTINE_FIELD, [QUARANTINED]))
    return must, must_not
