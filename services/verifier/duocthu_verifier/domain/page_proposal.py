"""Checking a proposal to send the user to the printed page (``verify_pdf``) before it is sealed.

Retrieval decides that a question's evidence can only be read on the page (a
quarantined table, a 2-D formula), or generation finds that the text beside a
table does not hold what was asked; either way the user is shown the cited
blocks and their page crops.  That is the book's content, so it passes the
verifier like an answer does (DESIGN.md): the evidence must carry its printed
pages, something in it must need the page, and the proposal carries no text
claims of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.answer import CheckOutcome, CheckRecord, Draft, Verdict
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_verifier.domain.checks import inputs_hash

CHECK = "page_proposal"


def _printed(block: Evidence) -> bool:
    return bool(block.source_refs) and all(1 <= r.printed_page_range[0] <= r.printed_page_range[1]
                                           for r in block.source_refs)


def _problem(evidence: Sequence[Evidence], draft: Draft) -> tuple[Reason, str] | None:
    if not evidence:
        return Reason.EVIDENCE_INSUFFICIENT, "no evidence to show on the page"
    unprinted = [e.evidence_id for e in evidence if not _printed(e)]
    if unprinted:
        return Reason.MISSING_PROVENANCE, f"no printed page for {', '.join(unprinted[:5])}"
    if not any(e.requires_visual_check or e.attachments for e in evidence):
        return Reason.EVIDENCE_INSUFFICIENT, "nothing in the evidence needs reading on the page"
    if draft.claims or draft.clarifying_question:
        return Reason.MALFORMED_OUTPUT, "a proposal to read the page carries no claims or question"
    return None


def check_page_proposal(evidence: Sequence[Evidence], draft: Draft) -> Verdict:
    """Accepted (``visual_check_required``) or the reason the page cannot be shown as it was proposed."""
    problem = _problem(evidence, draft)
    digest = inputs_hash(CHECK, [(e.evidence_id, [r.chunk_id for r in e.source_refs], e.text,
                                  e.requires_visual_check, [a.block_id for a in e.attachments]) for e in evidence],
                         len(draft.claims), draft.clarifying_question)
    record = CheckRecord(check=CHECK, outcome=CheckOutcome.FAILED if problem else CheckOutcome.PASSED,
                         reason=problem[0] if problem else None, detail=problem[1] if problem else "",
                         inputs_sha256=digest)
    if problem is not None:
        return Verdict(accepted=False, reason=problem[0], checks=[record])
    return Verdict(accepted=True, reason=Reason.VISUAL_CHECK_REQUIRED, checks=[record])
