"""The verifier stage's bus handler: a draft in, a sealed turn end or one repair request out.

Every turn end the verifier writes is sealed (``VerdictSigner``) and so goes
out on the verifier's own subject (``TurnVerified``): the only way an answer,
or the page to read, reaches a user.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerDraftedPayload,
    AnswerRejected,
    AnswerRejectedPayload,
    TurnCompleted,
)
from duocthu_providers import TurnBudget
from duocthu_runtime import StageContext
from duocthu_verifier import metrics
from duocthu_verifier.application.verification import subject_of, verify
from duocthu_verifier.domain.blocks import build_blocks
from duocthu_verifier.domain.page_proposal import check_page_proposal
from duocthu_verifier.domain.rendering import render
from duocthu_verifier.ports import EntailmentJudge, ReleaseTerms, VerdictSigner


class VerifierHandler:
    def __init__(self, judge: EntailmentJudge | None, terms: ReleaseTerms | None = None, *,
                 signer: VerdictSigner) -> None:
        self.judge = judge
        self.terms = terms
        self.signer = signer

    async def __call__(self, message: AnswerDrafted, ctx: StageContext[AnswerDrafted]) -> Sequence[Message]:
        outputs = await self._decide(message, ctx)
        return [self.signer.seal(out) if isinstance(out, TurnCompleted) else out for out in outputs]

    async def _decide(self, message: AnswerDrafted, ctx: StageContext[AnswerDrafted]) -> Sequence[Message]:
        payload = message.payload
        if payload.proposed is Decision.VERIFY_PDF:
            return [self._page(payload, ctx)]
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

    @staticmethod
    def _page(payload: AnswerDraftedPayload, ctx: StageContext[AnswerDrafted]) -> TurnCompleted:
        """A proposal to read the page: the cited blocks and their crops are shown once checked."""
        verdict = check_page_proposal(payload.evidence, payload.draft)
        metrics.VERDICTS.labels("accepted" if verdict.accepted else "rejected", verdict.reason).inc()
        common: dict[str, Any] = {"frame": payload.frame, "route": payload.route, "verdict": verdict,
                  "candidate_assessments": payload.candidate_assessments,
                  "resolved_drug_ids": sorted({e.drug_id for e in payload.evidence})}
        if verdict.accepted:
            return ctx.complete(Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED, evidence=payload.evidence, **common)
        return ctx.complete(Decision.ABSTAIN, verdict.reason, detail=verdict.checks[0].detail, **common)
