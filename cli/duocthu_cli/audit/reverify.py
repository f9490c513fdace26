"""Re-running the verifier on recorded drafts and comparing with the recorded verdicts.

Every recorded ``answer.drafted`` carries the draft *and* the evidence it
was checked against, and the verdict that followed it (in
``turn.completed`` or ``answer.rejected``) records each check with the hash
of its inputs.  Re-running the current verifier code on the recorded draft
must give the same deterministic records and, when a judge is configured,
the same verdict; anything else is a disagreement an auditor must read:
a tampered record, a changed check, or evidence that was altered.  The
specific-term check consulted the live release's term statistics; its
records hold the release id, the statistics' digest and every frequency it
looked up, and the re-run uses exactly those.  Every stored turn end is
checked too (``seals.py``): each seal of the verifier must still verify, and
no answer may be stored without one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pydantic import ValidationError

from duocthu_cli.audit.chain import ENDS, VERIFIED
from duocthu_cli.audit.records import Recorded
from duocthu_cli.audit.seals import stored_end_problem
from duocthu_contracts.answer import CheckRecord, Verdict
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_providers.llm.port import TurnBudget
from duocthu_runtime import utcnow
from duocthu_runtime.seal import Keyring
from duocthu_verifier import (
    EntailmentJudge,
    check_page_proposal,
    recorded_statistics,
    run_deterministic_checks,
    subject_of,
    term_context,
    verify,
)

JUDGE_CHECKS = frozenset({"entailment_judge", "completeness"})
_JUDGE_REASONS = frozenset({Reason.JUDGE_UNAVAILABLE, Reason.PROVIDER_UNAVAILABLE,
                            Reason.REQUEST_BUDGET_EXHAUSTED})


@dataclass(frozen=True)
class Disagreement:
    turn_id: str
    message_id: str  #: the recorded draft, or the stored turn end
    what: str


@dataclass
class ReverifyReport:
    drafts: int = 0
    compared_verdicts: int = 0
    seals: int = 0  #: stored seals checked
    disagreements: list[Disagreement] = field(default_factory=list)


def _key(record: CheckRecord) -> tuple[str, int | None]:
    return record.check, record.claim_index


def verdict_after(draft: Recorded, chain: Sequence[Recorded]) -> Verdict | None:
    """The verdict recorded in the message caused by ``draft`` (completion or rejection)."""
    for record in chain:
        if record.causation_id == draft.message_id and record.kind in (*ENDS, "rag.answer.rejected"):
            raw = record.payload.get("verdict")
            return Verdict.model_validate(raw) if raw else None
    return None


def compare_checks(recorded: Sequence[CheckRecord], rerun: Sequence[CheckRecord]) -> list[str]:
    """Differences between the deterministic records (outcome, reason, inputs hash per check and claim)."""
    old = {_key(r): r for r in recorded if r.check not in JUDGE_CHECKS}
    new = {_key(r): r for r in rerun}
    problems: list[str] = []
    for key in sorted(set(old) | set(new), key=lambda k: (k[0], -1 if k[1] is None else k[1])):
        a, b = old.get(key), new.get(key)
        where = f"{key[0]}" + (f" (claim {key[1]})" if key[1] is not None else "")
        if a is None or b is None:
            problems.append(f"{where}: recorded {'absent' if a is None else a.outcome}, "
                            f"re-run {'absent' if b is None else b.outcome}")
        elif (a.outcome, a.reason, a.inputs_sha256) != (b.outcome, b.reason, b.inputs_sha256):
            problems.append(f"{where}: recorded {a.outcome}/{a.reason} [{a.inputs_sha256[:12]}], "
                            f"re-run {b.outcome}/{b.reason} [{b.inputs_sha256[:12]}]")
    return problems


def check_ends(chain: Sequence[Recorded], keyring: Keyring, report: ReverifyReport) -> None:
    """Every stored turn end of the chain: a seal that verifies, and no answer without one."""
    for end in (r for r in chain if r.kind in ENDS):
        report.seals += end.kind == VERIFIED
        problem = stored_end_problem(end, keyring)
        if problem is not None:
            report.disagreements.append(Disagreement(end.turn_id or "?", end.message_id, problem))


async def reverify_chain(chain: Sequence[Recorded], judge: EntailmentJudge | None, report: ReverifyReport,
                         keyring: Keyring) -> None:
    check_ends(chain, keyring, report)
    for draft in (r for r in chain if r.kind == "rag.answer.drafted"):
        report.drafts += 1
        turn_id = draft.turn_id or "?"

        def disagree(what: str, draft: Recorded = draft, turn_id: str = turn_id) -> None:
            report.disagreements.append(Disagreement(turn_id, draft.message_id, what))

        try:
            payload = AnswerDraftedPayload.model_validate(draft.payload)
        except ValidationError as exc:
            disagree(f"the recorded draft does not parse: {exc.errors()[0]['msg']}")
            continue
        recorded = verdict_after(draft, chain)
        if recorded is None:
            disagree("no recorded verdict follows this draft")
            continue
        if payload.proposed is Decision.VERIFY_PDF:  # a proposal to read the page: its one check, re-run
            page = check_page_proposal(payload.evidence, payload.draft)
            for problem in compare_checks(recorded.checks, page.checks):
                disagree(problem)
            report.compared_verdicts += 1
            if (page.accepted, page.reason) != (recorded.accepted, recorded.reason):
                disagree(f"page verdict: recorded {recorded.reason}, re-run {page.reason}")
            continue
        terms = term_context(recorded_statistics(recorded.checks))  # the statistics as the verdict consulted them
        for problem in compare_checks(recorded.checks, run_deterministic_checks(subject_of(payload, terms))):
            disagree(problem)
        if judge is None and any(r.check in JUDGE_CHECKS for r in recorded.checks):
            continue  # the recorded verdict needed a judge this run does not have: deterministic part only
        budget = TurnBudget(deadline=utcnow() + timedelta(seconds=60), calls_left=2)
        rerun = await verify(subject_of(payload, terms), payload.query, judge, budget)
        if rerun.reason in _JUDGE_REASONS and recorded.reason not in _JUDGE_REASONS:
            continue  # the judge could not be consulted now: not evidence of a different verdict
        report.compared_verdicts += 1
        if (rerun.accepted, rerun.reason) != (recorded.accepted, recorded.reason):
            disagree(f"verdict: recorded {'accepted' if recorded.accepted else 'rejected'}/{recorded.reason}, "
                     f"re-run {'accepted' if rerun.accepted else 'rejected'}/{rerun.reason}")
