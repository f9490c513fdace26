"""Structured answers: claims with citations, the answer plan, verdicts.

Generation returns claims, not prose (seed 000, "Structured claims"); the
verifier records every check it ran with hashes of its inputs so that an
audit can re-run it later and compare.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from duocthu_contracts.base import Frozen
from duocthu_contracts.decisions import Reason
from duocthu_contracts.sections import SectionKey


class Claim(Frozen):
    text: str
    citations: list[int] = Field(default_factory=list, description="1-based indices into the evidence list")
    drug_id: str | None = None
    label: str | None = Field(default=None, description="population/route label the claim carries; verbatim a "
                                                       "label in force over the passage the claim is bound to")


class Draft(Frozen):
    claims: list[Claim] = Field(default_factory=list)
    evidence_sufficient: bool = True
    clarifying_question: str | None = None
    quick_replies: list[str] = Field(default_factory=list, max_length=4)
    generated: bool = False
    provider: str = "extractive"
    model: str | None = None


class Layout(StrEnum):
    DOSAGE = "dosage"
    BULLET_LIST = "bullet_list"
    PROSE = "prose"


class AnswerPlan(Frozen):
    verbosity: Literal["short", "normal", "full"] = "normal"
    layout: Layout = Layout.PROSE
    reasoning_mode: Literal["direct_lookup", "synthesis", "candidate_list"] = "direct_lookup"
    show_heading: bool = False
    needs_warning: bool = False
    list_mode: bool = False
    numeric_suppression: bool = False


class BlockKindUI(StrEnum):
    FACT_LIST = "fact_list"
    WARNING = "warning"
    DOSAGE = "dosage"


class AnswerBlock(Frozen):
    """A rendered group of verified claims; title/kind come from the cited section key."""

    title: str
    kind: BlockKindUI
    section_key: SectionKey | None = None
    drug_id: str | None = None
    claim_indices: list[int] = Field(default_factory=list)


class MissingEvidence(Frozen):
    description: str
    evidence_quote: str
    evidence_index: int | None = None


class CheckOutcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not_run"


class TermBasis(Frozen):
    """The live release's term statistics a check consulted: enough to re-run it without the release.

    ``statistics_sha256`` identifies the whole table the verifier held (an
    auditor recomputes it from the release's chunks); ``document_frequency``
    holds only the terms this check looked up.
    """

    release_id: str | None = None
    statistics_sha256: str = ""
    documents: int = Field(default=0, ge=0, description="chunks in the release")
    specific_limit: int = Field(default=0, ge=0, description="a term in at most this many chunks is specific")
    document_frequency: dict[str, int] = Field(default_factory=dict)
    background: str = Field(default="", description="identity of the general-language word frequencies")
    general_zipf: dict[str, float] = Field(default_factory=dict,
                                           description="general-language Zipf frequency of each looked-up term")


class CheckRecord(Frozen):
    """One check the verifier ran: enough to re-run it and compare."""

    check: str
    outcome: CheckOutcome
    reason: Reason | None = None
    detail: str = ""
    inputs_sha256: str = ""
    claim_index: int | None = None
    term_basis: TermBasis | None = None


class Verdict(Frozen):
    accepted: bool
    reason: Reason
    checks: list[CheckRecord] = Field(default_factory=list)
    missing_evidence: list[MissingEvidence] = Field(default_factory=list)
    judge: str | None = Field(default=None, description="provider/model of the entailment judge, if it ran")
