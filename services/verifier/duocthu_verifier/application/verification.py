"""Verifying one draft: deterministic checks, then the judge only if a claim is not verbatim.

The verifier renders the draft's claims itself and checks that rendering,
so the string a user reads and the structure that was checked cannot drift.
"""

from __future__ import annotations

from duocthu_contracts.answer import Verdict
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_providers import TurnBudget
from duocthu_verifier.domain.checks import DraftUnderCheck, run_deterministic_checks
from duocthu_verifier.domain.terms import TermContext
from duocthu_verifier.domain.verdict import decide, judge_records, needs_judge
from duocthu_verifier.ports import EntailmentJudge


def subject_of(payload: AnswerDraftedPayload, terms: TermContext | None = None) -> DraftUnderCheck:
    """What the checks read of a drafted answer, with the live release's term context (``None``: no statistics,
    no everyday words — every new term counts as specific)."""
    return DraftUnderCheck(
        draft=payload.draft,
        evidence=payload.evidence,
        list_mode=payload.list_mode,
        candidate_drug_ids=payload.candidate_drug_ids,
        terms=terms or TermContext(),
    )


async def verify(subject: DraftUnderCheck, question: str, judge: EntailmentJudge | None,
                 budget: TurnBudget) -> Verdict:
    records = run_deterministic_checks(subject)
    if not needs_judge(records) or judge is None:
        return decide(subject, records)
    result, failure, raw_sha = await judge.judge(question, subject.draft.claims, subject.evidence, budget)
    if result is not None:
        records = [*records, *judge_records(subject, result, raw_sha)]
    return decide(subject, records, judge=result, judge_failure=failure, judge_name=judge.name)
