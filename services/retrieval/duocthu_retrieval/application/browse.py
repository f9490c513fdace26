"""Monograph mode (request/reply): a drug's sections and a section's verbatim text, parts in order.

The gateway's browse endpoints ask a retrieval replica because retrieval is
the only process that opens the index.  Replies carry an ``error`` instead of
raising, so the gateway can tell "no such drug" from "index down".
"""

from __future__ import annotations

from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.rpc import (
    DrugListReply,
    DrugSummary,
    SectionListReply,
    SectionListRequest,
    SectionSummary,
    SectionTextReply,
    SectionTextRequest,
)
from duocthu_retrieval.domain.evidence_policy import to_evidence
from duocthu_retrieval.domain.release import merge_catalogs
from duocthu_retrieval.errors import IndexUnavailable
from duocthu_retrieval.ports import ChunkSearch
from duocthu_text import reassemble


def unavailable(exc: IndexUnavailable) -> str:
    """The reply's error: which store failure it was, without its detail (paths, URLs) crossing to a client."""
    return f"index unavailable: {type(exc.__cause__ or exc).__name__}"


async def list_drugs(index: ChunkSearch) -> DrugListReply:
    try:
        collection = await index.live_collection()
        if collection is None:
            return DrugListReply(error="no live release")
        catalog = merge_catalogs(await index.ledger(collection), "")
    except IndexUnavailable as exc:
        return DrugListReply(error=unavailable(exc))
    drugs = sorted((DrugSummary(drug_id=e.drug_id, drug_name=e.drug_name) for e in catalog.entries),
                   key=lambda d: d.drug_id)
    return DrugListReply(drugs=drugs)


async def list_sections(index: ChunkSearch, request: SectionListRequest) -> SectionListReply:
    try:
        chunks = await index.scroll_drug(request.drug_id)
    except IndexUnavailable as exc:
        return SectionListReply(drug_id=request.drug_id, error=unavailable(exc))
    if not chunks:
        return SectionListReply(drug_id=request.drug_id, error=f"no monograph {request.drug_id!r}")
    sections: dict[str, SectionSummary] = {}
    for chunk in chunks:  # book order
        seen = sections.get(chunk.section_key)
        sections[chunk.section_key] = SectionSummary(
            section_key=chunk.section_key, section_title=chunk.section_display_name, part_count=chunk.part_count,
            has_quarantined_content=chunk.has_quarantined_content or bool(seen and seen.has_quarantined_content))
    return SectionListReply(drug_id=request.drug_id, drug_name=chunks[0].drug_name, sections=list(sections.values()))


async def section_text(index: ChunkSearch, request: SectionTextRequest) -> SectionTextReply:
    try:
        chunks = await index.scroll_section(request.drug_id, request.section_key)
    except IndexUnavailable as exc:
        return SectionTextReply(drug_id=request.drug_id, section_key=request.section_key,
                                error=unavailable(exc))
    if not chunks:
        return SectionTextReply(drug_id=request.drug_id, section_key=request.section_key,
                                error=f"no section {request.section_key} in {request.drug_id!r}")
    parts = [to_evidence(c) for c in chunks]
    text = reassemble([c.source_text for c in chunks if c.chunk_kind is ChunkKind.PROSE])
    return SectionTextReply(drug_id=request.drug_id, section_key=request.section_key, drug_name=chunks[0].drug_name,
                            section_title=chunks[0].section_display_name, text=text, parts=parts)
