"""Chunks to evidence with provenance, and the evidence policy (seed 003 §14): decided by code.

No evidence → ABSTAIN ``no_evidence``; a chunk without a printed page →
ABSTAIN ``missing_provenance``; evidence that exists only as a page region
(a quarantined table or 2-D formula) → VERIFY_PDF with the crops; otherwise
ANSWERABLE and generation may proceed.  Tables and formulas are never handed
to generation as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_contracts.corpus import ChunkKind, ChunkRecord
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import Evidence, Route, SourceRef


def to_evidence(chunk: ChunkRecord, score: float | None = None) -> Evidence:
    refs = [SourceRef(chunk_id=chunk.chunk_id, printed_page_range=(r.printed_page, r.printed_page),
                      source_page_range=(r.physical_page, r.physical_page), bbox=r.bbox,
                      physical_page=r.physical_page) for r in chunk.source_regions]
    if not refs:
        refs = [SourceRef(chunk_id=chunk.chunk_id, printed_page_range=chunk.printed_page_range,
                          source_page_range=chunk.source_page_range)]
    return Evidence(
        evidence_id=chunk.chunk_id, drug_id=chunk.drug_id, drug_name=chunk.drug_name,
        section_key=chunk.section_key, section_title=chunk.section_display_name, text=chunk.text, score=score,
        source_refs=refs, requires_visual_check=is_visual(chunk), chunk_kind=chunk.chunk_kind,
        context_labels=list(chunk.context_labels), part_index=chunk.part_index, part_count=chunk.part_count,
        attachments=list(chunk.attachments),
    )


def is_visual(chunk: ChunkRecord) -> bool:
    """Content that can only be read on the page image: a block descriptor, or prose whose section holds a
    block it does not carry as a crop.

    Prose beside a table is still text (the chunker keeps tables out of prose); the table travels with it as
    its attachment, shown as a page crop next to the text answer.
    """
    if chunk.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR:
        return True
    return chunk.has_quarantined_content and not chunk.attachments


#: A released table row keyed on renal function ("Bảng 1. … — Độ thanh thải creatinin (ml/phút): 10 – 20; …").
_RENAL_ROW = re.compile(r" — (độ thanh thải creatinin|clcr|egfr|mức lọc cầu thận)", re.IGNORECASE)


def answered_by_rows(chunks: Sequence[ChunkRecord], renal_value_given: bool) -> bool:
    """A question giving the clearance/eGFR a released table is keyed on (a value, or a band picked from our quick
    replies) is answered by that table's rows.

    The rows are verified text (both extractors agreed, issue 19), so a
    whole-section read need not stop at VERIFY_PDF because the section also
    prints a formula or an unreleased table: those stay crops and are left out,
    and the row whose band holds the value is the answer.
    """
    return renal_value_given and any(c.chunk_kind is ChunkKind.TABLE_ROW and _RENAL_ROW.search(c.text)
                                     for c in chunks)


def has_provenance(chunk: ChunkRecord) -> bool:
    first, last = chunk.printed_page_range
    return 1 <= first <= last


@dataclass(frozen=True)
class PolicyOutcome:
    decision: Decision
    reason: Reason
    evidence: list[Evidence] = field(default_factory=list)
    detail: str = ""


def decide(route: Route, chunks: Sequence[tuple[ChunkRecord, float | None]], *,
           visual_blocks_whole_answer: bool) -> PolicyOutcome:
    """The policy over the evidence a route read.

    ``visual_blocks_whole_answer``: the route read a whole section (A) or a
    two-sided synthesis (D), where leaving out a table would leave out part
    of what was asked — any visual-only part makes the turn VERIFY_PDF.
    Otherwise (B, C) visual-only chunks are dropped from the text evidence
    and only an all-visual result is VERIFY_PDF.
    """
    if not chunks:
        return PolicyOutcome(Decision.ABSTAIN, Reason.NO_EVIDENCE, detail=f"route {route} found no evidence")
    missing = [c.chunk_id for c, _ in chunks if not has_provenance(c)]
    if missing:
        return PolicyOutcome(Decision.ABSTAIN, Reason.MISSING_PROVENANCE,
                             detail=f"no printed page for {', '.join(missing[:5])}")
    evidence = [to_evidence(c, s) for c, s in chunks]
    visual = [e for e in evidence if e.requires_visual_check]
    text = [e for e in evidence if not e.requires_visual_check]
    if visual and route is Route.A_SECTION and _crops_travel_with(visual, text):
        # the section's text is answered; each table goes with it as a page crop (generation decides whether
        # the text holds what was asked, else the turn is VERIFY_PDF)
        return PolicyOutcome(Decision.ANSWERABLE, Reason.VERIFIED, text)
    if visual and (visual_blocks_whole_answer or len(visual) == len(evidence)):
        return PolicyOutcome(Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED, evidence,
                             detail=f"{len(visual)} region(s) must be read on the page")
    return PolicyOutcome(Decision.ANSWERABLE, Reason.VERIFIED, text)


def _crops_travel_with(visual: Sequence[Evidence], text: Sequence[Evidence]) -> bool:
    """There is text, and every visual-only block's crop is attached to some text evidence."""
    carried = {a.block_id for e in text for a in e.attachments}
    needed = {a.block_id for e in visual for a in e.attachments}
    return bool(text) and bool(needed) and all(e.attachments for e in visual) and needed <= carried
