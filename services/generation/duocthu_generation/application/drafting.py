"""Drafting one answer: the plan from the frame and the evidence, then the writer's claims (or the turn's end).

Generation only decides how an answer reads; retrieval has decided what is
true.  So nothing is written without evidence, visual-only evidence is sent
to the PDF (a proposal the verifier checks and seals like an answer: the page
shows the book too), and every failure of the writer ends the turn with its
reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_contracts.answer import AnswerPlan, Draft
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.messages import EvidenceRetrievedPayload
from duocthu_generation import metrics
from duocthu_generation.domain import dosage, extractive
from duocthu_generation.domain.plan import make_plan
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_generation.errors import MalformedDraft
from duocthu_generation.ports import Writer
from duocthu_providers import BudgetExhausted, LLMError, MalformedResponse, TurnBudget


class ExtractiveWriter:
    """The default writer (no model): verbatim paragraphs and sentences of the evidence."""

    async def write(self, request: WriterInput, budget: TurnBudget) -> Draft:
        return extractive.write(request)


@dataclass(frozen=True)
class Drafted:
    """A draft for the verifier: claims to answer with, or (``verify_pdf``) the evidence to read on the page."""

    plan: AnswerPlan
    draft: Draft
    proposed: Decision = Decision.ANSWERABLE


#: The evidence is to be read on the printed page: no claims, the verifier checks the blocks and seals them.
TO_THE_PAGE = Drafted(AnswerPlan(), Draft(evidence_sufficient=False), Decision.VERIFY_PDF)


@dataclass(frozen=True)
class Ended:
    """The turn ends here: an abstention or a clarifying question."""

    decision: Decision
    reason: Reason
    detail: str = ""
    answer: str = ""
    quick_replies: list[str] = field(default_factory=list)
    #: The frame, when this ending changes it (a clarifying question the next turn answers).
    frame: QueryFrame | None = None


class Drafting:
    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    async def draft(self, retrieved: EvidenceRetrievedPayload, budget: TurnBudget, *,
                    missing: Sequence[str] = ()) -> Drafted | Ended:
        """A draft of claims over ``retrieved``; ``missing``: quotes a rejected draft left out (repair)."""
        if not retrieved.evidence:
            return Ended(Decision.ABSTAIN, Reason.NO_EVIDENCE)
        if any(e.requires_visual_check for e in retrieved.evidence):
            return TO_THE_PAGE
        plan = make_plan(retrieved.frame, retrieved.evidence, retrieved.route, list_mode=retrieved.list_mode)
        request = WriterInput(
            frame=retrieved.frame, evidence=retrieved.evidence, route=retrieved.route, plan=plan,
            question=retrieved.frame.standalone_query or retrieved.query,
            candidate_drug_ids=retrieved.candidate_drug_ids, assessments=retrieved.candidate_assessments,
            must_cover=missing)
        try:
            draft = await self.writer.write(request, budget)
        except BudgetExhausted as exc:
            return _abstain(Reason.REQUEST_BUDGET_EXHAUSTED, str(exc))
        except (MalformedDraft, MalformedResponse) as exc:
            return _abstain(Reason.MALFORMED_OUTPUT, str(exc))
        except LLMError as exc:
            return _abstain(Reason.PROVIDER_UNAVAILABLE, f"{type(exc).__name__}: {exc}")
        metrics.DRAFTS.labels(draft.provider, "drafted" if draft.claims else "no_claims").inc()
        if draft.clarifying_question:
            reason = Reason.GENERATOR_CLARIFY if draft.generated else Reason.PATIENT_INFO_REQUIRED \
                if dosage.asks_for_band(draft.clarifying_question) else Reason.POPULATION_REQUIRED
            # the frame remembers the open question, so the reply ("Người lớn") continues this turn's question
            frame = retrieved.frame.model_copy(update={
                "needs_clarify": True, "clarify_reason": reason.value, "quick_replies": draft.quick_replies[:4]})
            return Ended(Decision.CLARIFY, reason, answer=draft.clarifying_question,
                         quick_replies=draft.quick_replies[:4], frame=frame)
        if (not draft.evidence_sufficient or not draft.claims) and any(e.attachments for e in retrieved.evidence):
            # the text beside the table does not hold what was asked: the table must be read on the page
            return TO_THE_PAGE
        if not draft.evidence_sufficient or not draft.claims:
            return _abstain(Reason.EVIDENCE_INSUFFICIENT, "the writer found nothing to claim")
        return Drafted(plan, draft)


def _abstain(reason: Reason, detail: str) -> Ended:
    metrics.DRAFTS.labels("any", reason).inc()
    return Ended(Decision.ABSTAIN, reason, detail=detail[:500])
