"""Verifying one draft: deterministic checks, then the judge only if a claim is not verbatim."""

from __future__ import annotations

from duocthu_contracts.answer import Verdict
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_runtime.llm.port import TurnBudget
from duocthu_verifier.adapters.everyday_words import BACKGROUND, general_zipf
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.domain.checks import DraftUnderCheck, run_deterministic_checks
from duocthu_verifier.domain.terms import TermStatistics
from duocthu_verifier.domain.verdict import decide, judge_records, needs_judge


def subject_of(payload: AnswerDraftedPayload, terms: TermStatistics | None = None) -> DraftUnderCheck:
    return DraftUnderCheck(
        draft=payload.draft,
        evidence=payload.evidence,
        list_mode=payload.list_mode,
        candidate_drug_ids=payload.candidate_drug_ids,
        rendered_answer=payload.rendered_answer or None,
        terms=terms,
        background=general_zipf,
        background_id=BACKGROUND,
    )


async def verify(payload: AnswerDraftedPayload, judge: Judge | None, budget: TurnBudget,
                 terms: TermStatistics | None = None) -> Verdict:
    """``terms``: the live release's term statistics (``None`` until one is seen: every new term is specific)."""
    subject = subject_of(payload, terms)
    records = run_deterministic_checks(subject)
    if not needs_judge(records) or judge is None:
        return decide(subject, records)
    result, failure, raw_sha = await judge.judge(payload.query, payload.draft.claims, payload.evidence, budget)
    if result is not None:
        records = [*records, *judge_records(subject, result, raw_sha)]
    return decide(subject, records, judge=result, judge_failure=failure, judge_name=judge.name)
