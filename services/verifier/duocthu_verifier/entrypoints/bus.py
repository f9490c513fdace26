"""The verifier stage's bus handler: a draft in, a completed turn or one repair request out."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import AnswerDrafted, AnswerRejected, AnswerRejectedPayload
from duocthu_providers import TurnBudget
from duocthu_runtime import StageContext
from duocthu_verifier import metrics
from duocthu_verifier.application.verification import subject_of, verify
from duocthu_verifier.domain.blocks import build_blocks
from duocthu_verifier.domain.rendering import render
from duocthu_verifier.ports import EntailmentJudge, ReleaseTerms


class VerifierHandler:
    def __init__(self, judge: EntailmentJudge | None, terms: ReleaseTerms | None = None) -> None:
        self.judge = judge
        self.terms = terms

    async def __call__(self, message: AnswerDrafted, ctx: StageContext[AnswerDrafted]) -> Sequence[Message]:
        payload = message.payload
        budget = TurnBudget(deadline=message.deadline, calls_left=message.llm_calls_remaining)
        terms = self.terms.context() if self.terms is not None else None
        verdict = await verify(subject_of(payload, terms), payload.query, self.judge, budget)
        used = budget.calls_used
        common = {
            "frame": payload.frame, "route": payload.route, "plan": payload.plan, "verdict": verdict,
            "candidate_assessments": payload.candidate_assessments, "generated": payload.draft.generated,
            "resolved_drug_ids": sorted({e.drug_id for e in payload.evidence}),
        }
        if verdict.accepted:
            metrics.VERDICTS.labels("accepted", verdict.reason).inc()
            claims = list(payload.draft.claims)
            return [ctx.complete(
                Decision.ANSWERABLE, Reason.VERIFIED, llm_calls_used=used, answer=render(claims), claims=claims,
                evidence=payload.evidence, blocks=build_blocks(claims, payload.evidence), **common,
            )]
        metrics.VERDICTS.labels("rejected", verdict.reason).inc()
        if verdict.reason is Reason.INCOMPLETE_ANSWER and payload.attempt == 1:
            rejected = AnswerRejectedPayload(**payload.model_dump(), verdict=verdict)
            return [ctx.derive(AnswerRejected, rejected, llm_calls_used=used)]
        return [ctx.complete(Decision.ABSTAIN, verdict.reason, llm_calls_used=used,
                             detail=next((c.detail for c in verdict.checks if c.reason == verdict.reason), ""),
                             **common)]
