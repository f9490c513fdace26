"""Turning a completed turn into the HTTP response (DESIGN.md contract).

Citations are built from the evidence the claims were checked against, so
``citations[].text`` is exactly what the verifier saw.
"""

from __future__ import annotations

from duocthu_contracts.answer import CheckOutcome, Claim, Verdict
from duocthu_contracts.corpus import Attachment
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.http import (
    Citation,
    CitationAttachment,
    CitationRegion,
    ClaimOut,
    RagQueryResponse,
    StageTimingOut,
)
from duocthu_contracts.messages import TurnCompleted
from duocthu_gateway.domain.reasons import REASON_MESSAGES


def crop_url(page: int, bbox: tuple[float, float, float, float]) -> str:
    """Where the gateway serves the page region (``/v1/rag/crop``), for the evidence panel and VERIFY_PDF."""
    x0, y0, x1, y1 = bbox
    return f"/v1/rag/crop?page={page}&x0={x0:.1f}&y0={y0:.1f}&x1={x1:.1f}&y1={y1:.1f}"


def _first_time(attachments: list[Attachment], shown: set[str] | None) -> list[Attachment]:
    if shown is None:
        return attachments
    out = [a for a in attachments if a.block_id not in shown]
    shown.update(a.block_id for a in out)
    return out


def citation(index: int, ev: Evidence, shown: set[str] | None = None) -> Citation:
    """One citation; ``shown``: the crops (block ids) earlier citations of the answer already attach — a table
    beside several parts of a section is attached once per answer, not once per part."""
    refs = ev.source_refs
    first, last = refs[0], refs[-1]
    regions = [
        CitationRegion(physical_page=r.physical_page, printed_page=r.printed_page_range[0], bbox=r.bbox,
                       crop_url=crop_url(r.physical_page, r.bbox))
        for r in refs
        if r.bbox is not None and r.physical_page is not None
    ]
    return Citation(
        index=index,
        evidence_id=ev.evidence_id,
        chunk_id=first.chunk_id,
        drug_id=ev.drug_id,
        drug_name=ev.drug_name,
        section_key=ev.section_key,
        section_title=ev.section_title,
        printed_page_range=(first.printed_page_range[0], last.printed_page_range[1]),
        source_page_range=(first.source_page_range[0], last.source_page_range[1]),
        text=ev.text,
        attachments=[
            CitationAttachment(
                block_id=a.block_id, kind=a.kind, physical_page=a.physical_page,
                printed_page=a.printed_page, bbox=a.bbox, crop_url=crop_url(a.physical_page, a.bbox),
            )
            for a in _first_time(ev.attachments, shown)
        ],
        regions=regions,
        requires_visual_check=ev.requires_visual_check,
    )


def verified_label(index: int, claim: Claim, verdict: Verdict | None) -> str | None:
    """A claim's label only when an accepted verdict bound it to a label printed over the claim's passage.

    The label is shown as a heading of the claim, so it is as much a claim as
    the text: an unverified label (a draft's, or one from before label binding
    existed) is never shown.
    """
    if claim.label is None or verdict is None or not verdict.accepted:
        return None
    bound = any(r.check == "label_binding" and r.claim_index == index and r.outcome is CheckOutcome.PASSED
                for r in verdict.checks)
    return claim.label if bound else None


def render(completed: TurnCompleted, *, otel_trace_id: str | None) -> RagQueryResponse:
    p = completed.payload
    shown: set[str] = set()
    citations = [citation(i, ev, shown) for i, ev in enumerate(p.evidence, start=1) if ev.source_refs]
    return RagQueryResponse(
        trace_id=completed.turn_id,
        correlation_id=completed.correlation_id,
        otel_trace_id=otel_trace_id,
        conversation_id=p.conversation_id,
        decision=p.decision,
        reason=p.reason,
        reason_message=REASON_MESSAGES.get(p.reason, ""),
        answer=p.answer,
        claims=[ClaimOut(text=c.text, citations=c.citations, drug_id=c.drug_id, label=verified_label(i, c, p.verdict))
                for i, c in enumerate(p.claims)],
        citations=citations,
        quick_replies=p.quick_replies,
        resolved_drug_ids=p.resolved_drug_ids,
        generated=p.generated,
        blocks=p.blocks,
        plan=p.plan,
        candidate_assessments=p.candidate_assessments,
        route=p.route,
        stage_timings=[StageTimingOut(stage=t.stage, ms=t.ms) for t in completed.stage_timings],
    )


def abstain(
    *, trace_id: str, correlation_id: str, reason: Reason, conversation_id: str | None,
    otel_trace_id: str | None, reason_message: str | None = None,
) -> RagQueryResponse:
    return RagQueryResponse(
        trace_id=trace_id,
        correlation_id=correlation_id,
        otel_trace_id=otel_trace_id,
        conversation_id=conversation_id,
        decision=Decision.ABSTAIN,
        reason=reason,
        reason_message=reason_message or REASON_MESSAGES.get(reason, ""),
    )
