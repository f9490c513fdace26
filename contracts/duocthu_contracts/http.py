"""The HTTP contract of the gateway (DESIGN.md, "Contracts the outside world sees")."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from duocthu_contracts.answer import AnswerBlock, AnswerPlan
from duocthu_contracts.base import Frozen
from duocthu_contracts.corpus import BBox, BlockKind, PageRange
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import CandidateAssessment, Route
from duocthu_contracts.sections import SectionKey

#: Fixed, code-owned notice carried by every response, abstains and errors
#: included.  It is never produced by a model, so it cannot be reworded away.
DISCLAIMER = (
    "Nội dung được trích nguyên văn từ dược thư đã nạp vào hệ thống (bộ dữ liệu đi kèm dự án là "
    "bản mẫu minh họa, không phải Dược thư Quốc gia), chỉ phục vụ tra cứu chuyên môn và không thay "
    "thế chỉ định của bác sĩ hoặc dược sĩ lâm sàng."
)

QUERY_MAX_CHARS = 4000
CONVERSATION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"


class RagQueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    query: str = Field(min_length=1, max_length=QUERY_MAX_CHARS)
    conversation_id: str | None = Field(default=None, pattern=CONVERSATION_ID_PATTERN)
    response_mode: Literal["answer", "monograph"] = "answer"


class CitationAttachment(Frozen):
    block_id: str
    kind: BlockKind
    physical_page: int
    printed_page: int
    bbox: BBox
    crop_url: str | None = None


class CitationRegion(Frozen):
    physical_page: int
    printed_page: int
    bbox: BBox
    crop_url: str | None = None


class Citation(Frozen):
    index: int = Field(ge=1)
    evidence_id: str
    chunk_id: str
    drug_id: str
    drug_name: str
    section_key: SectionKey
    section_title: str
    printed_page_range: PageRange
    source_page_range: PageRange
    text: str = Field(description="the exact evidence text the claim was checked against")
    attachments: list[CitationAttachment] = Field(default_factory=list)
    regions: list[CitationRegion] = Field(default_factory=list)
    requires_visual_check: bool = False


class ClaimOut(Frozen):
    text: str
    citations: list[int] = Field(default_factory=list)
    drug_id: str | None = None
    label: str | None = None


class StageTimingOut(Frozen):
    stage: str
    ms: float


class RagQueryResponse(Frozen):
    trace_id: str
    correlation_id: str
    otel_trace_id: str | None = None
    conversation_id: str | None = None
    decision: Decision
    reason: Reason
    reason_message: str = Field(default="", description="plain-Vietnamese explanation of the reason")
    answer: str = ""
    claims: list[ClaimOut] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    quick_replies: list[str] = Field(default_factory=list)
    resolved_drug_ids: list[str] = Field(default_factory=list)
    generated: bool = False
    blocks: list[AnswerBlock] = Field(default_factory=list)
    plan: AnswerPlan | None = None
    candidate_assessments: list[CandidateAssessment] = Field(default_factory=list)
    route: Route | None = None
    stage_timings: list[StageTimingOut] = Field(default_factory=list)
    disclaimer: str = DISCLAIMER


class ErrorResponse(BaseModel):
    """Body of every non-2xx response: the reason is never masked (seed 003 §24.16)."""

    error: str
    detail: list[dict[str, object]] | str
    trace_id: str | None = None
    disclaimer: str = DISCLAIMER


class HistoryEntry(Frozen):
    trace_id: str
    query: str
    decision: Decision
    reason: Reason
    resolved_drug_ids: list[str] = Field(default_factory=list)
    at: AwareDatetime


class HistoryResponse(Frozen):
    """``GET /v1/rag/history``: a conversation's turns, oldest first (the UI re-runs them, it never replays)."""

    conversation_id: str
    turns: list[HistoryEntry] = Field(default_factory=list)
    disclaimer: str = DISCLAIMER


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trace_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    helpful: bool
    comment: str | None = Field(default=None, max_length=2000)


class FeedbackAccepted(BaseModel):
    trace_id: str
    accepted: bool = True
    disclaimer: str = DISCLAIMER
