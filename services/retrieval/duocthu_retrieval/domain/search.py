"""What a search asks for and what it returns, independent of the vector store."""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts.corpus import ChunkKind, ChunkRecord
from duocthu_contracts.sections import SECTION_ORDER, SectionKey


@dataclass(frozen=True)
class SearchFilter:
    """Payload conditions (all must hold); an empty tuple means "any"."""

    drug_ids: tuple[str, ...] = ()
    section_keys: tuple[SectionKey, ...] = ()
    exclude_section_keys: tuple[SectionKey, ...] = ()
    chunk_kinds: tuple[ChunkKind, ...] = ()
    atc_codes: tuple[str, ...] = ()
    exclude_quarantined: bool = False


@dataclass(frozen=True)
class ScoredChunk:
    chunk: ChunkRecord
    score: float


def book_order(chunks: list[ChunkRecord]) -> list[ChunkRecord]:
    """Sections in the book's order, parts by ``part_index`` (Qdrant returns points in UUID order)."""
    return sorted(chunks, key=lambda c: (c.drug_id, SECTION_ORDER.index(c.section_key), c.part_index))


#: The filter that matches every chunk.
ANY = SearchFilter()
