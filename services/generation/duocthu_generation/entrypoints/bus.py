"""The generation stage's bus handlers: evidence (or a rejection) in, a draft for the verifier or the turn's end out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu_contracts.decisions import Decision
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerDraftedPayload,
    AnswerRejected,
    EvidenceRetrieved,
    EvidenceRetrievedPayload,
)
from duocthu_generation.application.drafting import Drafted, Drafting
from duocthu_providers import TurnBudget
from duocthu_runtime import StageContext

AnyTurn = EvidenceRetrieved | AnswerRejected


class GenerationHandler:
    def __init__(self, drafting: Drafting) -> None:
        self.drafting = drafting

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
        budget = TurnBudget(deadline=message.deadline, calls_left=message.llm_calls_remaining)
        result = await self.drafting.draft(payload, budget, missing=missing)
        if isinstance(result, Drafted):
            drafted = AnswerDraftedPayload(**payload.model_dump(), plan=result.plan, draft=result.draft,
                                           attempt=attempt, proposed=result.proposed)
            return [ctx.derive(AnswerDrafted, drafted, llm_calls_used=budget.calls_used)]
        return [ctx.complete(result.decision, result.reason, llm_calls_used=budget.calls_used,
                             frame=result.frame or payload.frame, route=payload.route,
                             candidate_assessments=payload.candidate_assessments, detail=result.detail,
                             answer=result.answer, quick_replies=result.quick_replies)]
