"""Message handlers: evidence (or a rejection) in, a draft for the verifier or the turn's end out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu_contracts.answer import AnswerPlan, Draft
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerDraftedPayload,
    AnswerRejected,
    EvidenceRetrieved,
    EvidenceRetrievedPayload,
)
from duocthu_generation import metrics
from duocthu_generation.adapters.model_writer import ModelWriter
from duocthu_generation.domain import extractive
from duocthu_generation.domain.parsing import MalformedDraft
from duocthu_generation.domain.plan import make_plan
from duocthu_providers.errors import BudgetExhausted, LLMError, MalformedResponse
from duocthu_providers.llm.port import TurnBudget
from duocthu_runtime.bus.stage import StageContext

AnyTurn = EvidenceRetrieved | AnswerRejected


class GenerationHandler:
    """``writer`` None: the extractive writer (no model)."""

    def __init__(self, writer: ModelWriter | None = None) -> None:
        self.writer = writer

    async def on_evidence(self, message: EvidenceRetrieved, ctx: StageContext[EvidenceRetrieved]) -> Sequence[Message]:
        return await self._draft(message, ctx, message.payload, attempt=1, missing=())

    async def on_rejected(self, message: AnswerRejected, ctx: StageContext[AnswerRejected]) -> Sequence[Message]:
        payload = message.payload
        if payload.attempt >= 2:  # a second rejection is final (the verifier completes it; never loop)
            return [ctx.complete(Decision.ABSTAIN, payload.verdict.reason, frame=payload.frame, route=payload.route)]
        quotes = [m.evidence_quote for m in payload.verdict.missing_evidence]
        base = EvidenceRetrievedPayload(**{k: v for k, v in payload.model_dump().items()
                                           if k in EvidenceRetrievedPayload.model_fields})
        return await self._draft(message, ctx, base, attempt=2, missing=quotes)

    async def _draft(self, message: AnyTurn, ctx: StageContext[Any], payload: EvidenceRetrievedPayload, *,
                     attempt: int, missing: Sequence[str]) -> Sequence[Message]:
        common: dict[str, Any] = {"frame": payload.frame, "route": payload.route,
                  "candidate_assessments": payload.candidate_assessments}
        if not payload.evidence:
            return [ctx.complete(Decision.ABSTAIN, Reason.NO_EVIDENCE, **common)]
        if any(e.requires_visual_check for e in payload.evidence):
            return [ctx.complete(Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED, evidence=payload.evidence,
                                 **common)]
        plan = make_plan(payload.frame, payload.evidence, payload.route, list_mode=payload.list_mode)
        budget = TurnBudget(deadline=message.deadline, calls_left=message.llm_calls_remaining)
        try:
            draft = await self._write(payload, plan, budget, missing)
        except BudgetExhausted as exc:
            return self._abstain(ctx, Reason.REQUEST_BUDGET_EXHAUSTED, str(exc), budget, common)
        except (MalformedDraft, MalformedResponse) as exc:
            return self._abstain(ctx, Reason.MALFORMED_OUTPUT, str(exc), budget, common)
        except LLMError as exc:
            return self._abstain(ctx, Reason.PROVIDER_UNAVAILABLE, f"{type(exc).__name__}: {exc}", budget, common)
        metrics.DRAFTS.labels(draft.provider, "drafted" if draft.claims else "no_claims").inc()
        if draft.clarifying_question:
            reason = Reason.GENERATOR_CLARIFY if draft.generated else Reason.POPULATION_REQUIRED
            # the frame remembers the open question, so the reply ("Người lớn") continues this turn's question
            common["frame"] = payload.frame.model_copy(update={
                "needs_clarify": True, "clarify_reason": reason.value, "quick_replies": draft.quick_replies[:4]})
            return [ctx.complete(Decision.CLARIFY, reason, answer=draft.clarifying_question,
                                 quick_replies=draft.quick_replies[:4], llm_calls_used=budget.calls_used, **common)]
        if not draft.evidence_sufficient or not draft.claims:
            return self._abstain(ctx, Reason.EVIDENCE_INSUFFICIENT, "the writer found nothing to claim", budget,
                                 common)
        drafted = AnswerDraftedPayload(**payload.model_dump(), plan=plan, draft=draft, attempt=attempt)
        return [ctx.derive(AnswerDrafted, drafted, llm_calls_used=budget.calls_used)]

    async def _write(self, payload: EvidenceRetrievedPayload, plan: AnswerPlan, budget: TurnBudget,
                     missing: Sequence[str]) -> Draft:
        if self.writer is None:
            return extractive.write(extractive.WriterInput(
                frame=payload.frame, evidence=payload.evidence, route=payload.route, plan=plan,
                candidate_drug_ids=payload.candidate_drug_ids, assessments=payload.candidate_assessments,
                must_cover=missing))
        question = payload.frame.standalone_query or payload.query
        return await self.writer.write(question, payload.evidence, plan, budget,
                                       allowed_drug_ids=payload.candidate_drug_ids, missing=missing)

    @staticmethod
    def _abstain(ctx: StageContext[Any], reason: Reason, detail: str, budget: TurnBudget,
                 common: dict[str, Any]) -> Sequence[Message]:
        metrics.DRAFTS.labels("any", reason).inc()
        return [ctx.complete(Decision.ABSTAIN, reason, detail=detail[:500], llm_calls_used=budget.calls_used,
                             **common)]
