"""From check records (and an optional judge result) to a verdict.

``_CheckNotRun`` vs a negative verdict (seed 000): when the judge could not be
consulted the reason says why (``judge_unavailable``, ``provider_unavailable``,
``request_budget_exhausted``, ``malformed_output``); ``unsupported_claim`` is
reserved for a judge that ran and said no.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.answer import CheckOutcome, CheckRecord, MissingEvidence, Verdict
from duocthu_contracts.decisions import Reason
from duocthu_verifier.domain.checks import DraftUnderCheck, first_failure, inputs_hash
from duocthu_verifier.domain.completeness import grounded_objections
from duocthu_verifier.domain.judge_prompt import JudgeResult


def needs_judge(records: Sequence[CheckRecord]) -> bool:
    """True when every deterministic check passed but some claim is not verbatim."""
    return first_failure(records) is None and any(
        r.check == "verbatim_entailment" and r.outcome is CheckOutcome.NOT_RUN for r in records
    )


def judge_not_run(reason: Reason, detail: str) -> CheckRecord:
    return CheckRecord(check="entailment_judge", outcome=CheckOutcome.NOT_RUN, reason=reason, detail=detail)


def judge_records(subject: DraftUnderCheck, result: JudgeResult, raw_sha256: str) -> list[CheckRecord]:
    records = []
    for judgement in result.claims:
        claim = subject.draft.claims[judgement.index - 1]
        records.append(CheckRecord(
            check="entailment_judge",
            outcome=CheckOutcome.PASSED if judgement.entailed else CheckOutcome.FAILED,
            reason=None if judgement.entailed else Reason.UNSUPPORTED_CLAIM,
            detail=judgement.explanation[:300],
            inputs_sha256=inputs_hash("judge", claim.text, raw_sha256),
            claim_index=judgement.index - 1,
        ))
    return records


def decide(
    subject: DraftUnderCheck,
    records: list[CheckRecord],
    *,
    judge: JudgeResult | None = None,
    judge_failure: CheckRecord | None = None,
    judge_name: str | None = None,
) -> Verdict:
    """The verdict: first deterministic failure, else the judge's outcome, else completeness."""
    failure = first_failure(records)
    if failure is not None:
        return Verdict(accepted=False, reason=failure.reason or Reason.MALFORMED_OUTPUT, checks=records)
    if needs_judge(records):
        if judge_failure is not None:
            records = [*records, judge_failure]
            return Verdict(accepted=False, reason=judge_failure.reason or Reason.JUDGE_UNAVAILABLE, checks=records,
                           judge=judge_name)
        if judge is None:
            records = [*records, judge_not_run(Reason.JUDGE_UNAVAILABLE, "no entailment judge is configured")]
            return Verdict(accepted=False, reason=Reason.JUDGE_UNAVAILABLE, checks=records)
    if judge is not None:
        failure = first_failure(records)
        if failure is not None:
            return Verdict(accepted=False, reason=Reason.UNSUPPORTED_CLAIM, checks=records, judge=judge_name)
        objections: list[MissingEvidence] = []
        if not judge.complete:
            objections = grounded_objections(judge.missing_evidence, subject.evidence, subject.draft.claims)
        records = [*records, CheckRecord(
            check="completeness",
            outcome=CheckOutcome.FAILED if objections else CheckOutcome.PASSED,
            reason=Reason.INCOMPLETE_ANSWER if objections else None,
            detail=(f"{len(objections)} grounded of {len(judge.missing_evidence)} objections"
                    if not judge.complete else ""),
            inputs_sha256=inputs_hash("completeness", [m.model_dump() for m in judge.missing_evidence],
                                      [e.text for e in subject.evidence]),
        )]
        if objections:
            return Verdict(accepted=False, reason=Reason.INCOMPLETE_ANSWER, checks=records,
                           missing_evidence=objections, judge=judge_name)
        return Verdict(accepted=True, reason=Reason.VERIFIED, checks=records, judge=judge_name)
    return Verdict(accepted=True, reason=Reason.VERIFIED, checks=records)
