"""Corpus records: chunks (schema v4, seed 003 §9.6), the drug catalog, embeddings.

A chunk carries its full provenance so that nothing downstream has to go back
to the PDF to know where a sentence came from.  ``text`` is what retrieval
embeds (it may repeat a carried population/route label); ``source_text`` is
the exact source span used for reassembly and citation.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from duocthu_contracts.base import Frozen
from duocthu_contracts.sections import SectionKey

PageRange = tuple[int, int]
BBox = tuple[float, float, float, float]



class BlockKind(StrEnum):
    TABLE = "table"
    FORMULA = "formula"


class ChunkKind(StrEnum):
    PROSE = "prose"
    BLOCK_DESCRIPTOR = "block_descriptor"
    TABLE_ROW = "table_row"  # one body row of a table both extractors agreed on, with caption and header paths


class Attachment(Frozen):
    """A quarantined region (table or 2-D formula) that is shown as a page crop."""

    block_id: str
    kind: BlockKind
    section_key: SectionKey
    physical_page: int = Field(ge=0)
    printed_page: int = Field(ge=1)
    bbox: BBox


class PageRegion(Frozen):
    """Where on a physical page a chunk's source text lies (for crops).

    An additive extension of schema v4: the seed kept bboxes only on parts.
    """

    physical_page: int = Field(ge=0)
    printed_page: int = Field(ge=1)
    bbox: BBox


class ChunkRecord(Frozen):
    schema_version: Literal[4] = 4
    chunk_id: str = Field(pattern=r"^[a-z0-9_]+__[a-z_]+__\d+$")
    drug_id: str
    drug_name: str
    section_key: SectionKey
    section_display_name: str
    text: str = Field(min_length=1)
    source_text: str = Field(min_length=1)
    context_labels: list[str] = Field(default_factory=list)
    heading_physical_page: int = Field(ge=0)
    source_page_range: PageRange
    printed_page_range: PageRange
    atc_codes: list[str] = Field(default_factory=list)
    part_index: int = Field(ge=0)
    part_count: int = Field(ge=1)
    est_tokens: int = Field(ge=0)
    oversized: bool = False
    chunk_kind: ChunkKind = ChunkKind.PROSE
    attachments: list[Attachment] = Field(default_factory=list)
    has_quarantined_content: bool = False
    source_regions: list[PageRegion] = Field(default_factory=list)


class AliasKind(StrEnum):
    TITLE = "title"
    INN = "inn"
    TRADE_NAME = "trade_name"
    INDEX_ALIAS = "index_alias"


class Alias(Frozen):
    text: str
    kind: AliasKind


class CatalogEntry(Frozen):
    drug_id: str
    drug_name: str
    aliases: list[Alias] = Field(default_factory=list)
    atc_codes: list[str] = Field(default_factory=list)
    section_keys: list[SectionKey] = Field(default_factory=list)
    dosage_labels: list[str] = Field(
        default_factory=list, description="population/route labels printed in the dosage section"
    )
    printed_page_range: PageRange | None = None


class DrugCatalog(Frozen):
    corpus_sha256: str = ""
    entries: list[CatalogEntry] = Field(default_factory=list)
    unresolved_aliases: list[str] = Field(default_factory=list)
    ambiguous_aliases: list[str] = Field(default_factory=list)


class SparseVector(Frozen):
    indices: list[int] = Field(default_factory=list)
    values: list[float] = Field(default_factory=list)


class EmbeddingModel(Frozen):
    """Identity of a vector space; a query embedder must match it exactly."""

    provider: str
    model_id: str
    dimensions: int = Field(ge=1)
    input_kind: str = Field(description="document-side input kind, e.g. 'passage' or 'search_document'")
    distance: Literal["Cosine", "Dot", "Euclid"] = "Cosine"
    sparse_model: str = Field(default="", description="identity of the lexical sparse encoder")


class EmbeddedChunk(Frozen):
    chunk: ChunkRecord
    dense: list[float]
    sparse: SparseVector


class ReleaseManifest(Frozen):
    release_id: str
    corpus_sha256: str
    chunk_count: int = Field(ge=0)
    model_id: str
    dimensions: int
    input_kind: str
    provider: str
    distance: str
    sparse_model: str = ""
    source_sha256: str = ""
    collection: str = ""
