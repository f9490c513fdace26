"""Evidence: what retrieval hands to generation, with provenance.

``text`` of an evidence block is the exact text claims are checked against
and the exact text shown to the user next to a citation.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from duocthu_contracts.base import Frozen
from duocthu_contracts.corpus import Attachment, BBox, ChunkKind, PageRange
from duocthu_contracts.sections import SectionKey


class Route(StrEnum):
    A_SECTION = "A"  # drug + section known: filter-scroll the whole section
    B_OVERVIEW = "B"  # one drug, overview or free-form: hybrid inside the monograph
    C_CONDITION = "C"  # condition -> drug: chi_dinh only
    D_INTERACTION = "D"  # two drugs: both interaction sections
    MONOGRAPH = "monograph"


class SourceRef(Frozen):
    chunk_id: str
    printed_page_range: PageRange
    source_page_range: PageRange
    bbox: BBox | None = None
    physical_page: int | None = None
    block_id: str | None = None


class Evidence(Frozen):
    evidence_id: str
    drug_id: str
    drug_name: str
    section_key: SectionKey
    section_title: str
    text: str
    score: float | None = None
    source_refs: list[SourceRef] = Field(default_factory=list)
    requires_visual_check: bool = False
    chunk_kind: ChunkKind = ChunkKind.PROSE
    context_labels: list[str] = Field(default_factory=list)
    part_index: int = 0
    part_count: int = 1
    attachments: list[Attachment] = Field(default_factory=list)


class CandidateStatus(StrEnum):
    SUPPORTED = "supported"
    SUPPORTED_WITH_CAUTION = "supported_with_caution"
    REQUIRES_ADDITIONAL_INFORMATION = "requires_additional_information"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


class SafetyAspect(StrEnum):
    INTERACTION = "interaction"
    CONTRAINDICATION = "contraindication"
    PRECAUTION = "precaution"
    RENAL = "renal"
    HEPATIC = "hepatic"
    PREGNANCY = "pregnancy"
    LACTATION = "lactation"
    AGE = "age"
    ALLERGY = "allergy"


class SafetyFinding(Frozen):
    aspect: SafetyAspect
    evidence_ids: list[str] = Field(default_factory=list)
    matched_terms: list[str] = Field(default_factory=list)
    note: str = ""


class CandidateAssessment(Frozen):
    """Patient-specific stage 2 of route C (seed 003 §13.4).

    A missing hit is recorded as missing information, never as "safe".
    """

    drug_id: str
    drug_name: str
    status: CandidateStatus
    indication_evidence_ids: list[str] = Field(default_factory=list)
    findings: list[SafetyFinding] = Field(default_factory=list)
    missing_information: list[str] = Field(default_factory=list)
