"""The deterministic checks of a draft (no model, no I/O).

Each check returns :class:`CheckRecord` s carrying a hash of exactly the
inputs it looked at, so an audit can re-run the same check on the recorded
messages and compare outcomes (``duocthu audit reverify``).  The public entry
point is :func:`run_deterministic_checks`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.answer import CheckOutcome, CheckRecord, Claim, Draft
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_text.vietnamese import fold
from duocthu_verifier.domain.numbers import ungrounded
from duocthu_verifier.domain.rendering import has_content, render, split_segments
from duocthu_verifier.domain.text import lowered, normalized, strip_markers

#: Ranking language: "indicated for" never proves "preferred" (seed 000, rule 10).
RANKING_PHRASES: tuple[str, ...] = (
    "lựa chọn đầu tay", "lựa chọn hàng đầu", "lựa chọn tốt nhất", "lựa chọn ưu tiên", "ưu tiên hàng đầu",
    "thuốc ưu tiên", "được ưu tiên", "tốt nhất", "hiệu quả nhất", "phác đồ chuẩn", "điều trị chuẩn",
    "tiêu chuẩn vàng", "thuốc được chọn", "first-line", "first line", "drug of choice", "gold standard",
)
#: Safety/absence language: not finding a problem is never "safe" (seed 000, rule 10).
SAFETY_PHRASES: tuple[str, ...] = (
    "an toàn", "không có tương tác", "không tương tác", "không chống chỉ định", "không có chống chỉ định",
    "không gây hại", "vô hại", "không có tác dụng phụ", "không có tác dụng không mong muốn",
    "không cần thận trọng", "không có nguy cơ", "safe", "no interaction",
)


@dataclass(frozen=True)
class DraftUnderCheck:
    """What the checks need: the claims, the numbered evidence, and list-mode constraints."""

    draft: Draft
    evidence: Sequence[Evidence]
    list_mode: bool = False
    candidate_drug_ids: Sequence[str] = ()
    rendered_answer: str | None = None


def inputs_hash(*parts: object) -> str:
    body = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _record(check: str, failure: Reason | None, detail: str, digest: str, claim: int | None = None) -> CheckRecord:
    return CheckRecord(
        check=check,
        outcome=CheckOutcome.FAILED if failure else CheckOutcome.PASSED,
        reason=failure,
        detail=detail,
        inputs_sha256=digest,
        claim_index=claim,
    )


def cited(subject: DraftUnderCheck, claim: Claim) -> list[Evidence]:
    return [subject.evidence[i - 1] for i in claim.citations if 1 <= i <= len(subject.evidence)]


def check_schema(subject: DraftUnderCheck) -> list[CheckRecord]:
    draft = subject.draft
    problems = []
    if not draft.claims:
        problems.append("no claims")
    for i, claim in enumerate(draft.claims):
        if not claim.text.strip():
            problems.append(f"claim {i} has empty text")
        if any(c < 1 for c in claim.citations):
            problems.append(f"claim {i} has a non-positive citation")
        if subject.list_mode and not claim.drug_id:
            problems.append(f"claim {i} lacks drug_id in list mode")
    if len(draft.quick_replies) != len(set(draft.quick_replies)):
        problems.append("duplicate quick replies")
    digest = inputs_hash("schema", draft.model_dump(mode="json"), subject.list_mode)
    return [_record("schema", Reason.MALFORMED_OUTPUT if problems else None, "; ".join(problems), digest)]


def check_visual(subject: DraftUnderCheck) -> list[CheckRecord]:
    visual = [e.evidence_id for e in subject.evidence if e.requires_visual_check]
    digest = inputs_hash("visual", [(e.evidence_id, e.requires_visual_check) for e in subject.evidence])
    failure = Reason.VISUAL_EVIDENCE_NOT_GENERATABLE if visual else None
    return [_record("visual_evidence", failure, ", ".join(visual), digest)]


def check_candidates(subject: DraftUnderCheck) -> list[CheckRecord]:
    """List mode: every claim names a retrieved candidate and cites only that drug's blocks."""
    if not subject.list_mode:
        return []
    allowed = set(subject.candidate_drug_ids)
    records = []
    for i, claim in enumerate(subject.draft.claims):
        blocks = cited(subject, claim)
        problem = ""
        if claim.drug_id not in allowed:
            problem = f"drug {claim.drug_id!r} is not a retrieved candidate"
        elif any(b.drug_id != claim.drug_id for b in blocks):
            problem = f"claim about {claim.drug_id} cites another drug's block"
        digest = inputs_hash("candidates", claim.drug_id, sorted(allowed), [b.drug_id for b in blocks])
        records.append(_record("candidate_set", Reason.UNSUPPORTED_DRUG if problem else None, problem, digest, i))
    return records


def check_citations(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Every claim (and the rendered string's trailing text) carries valid citations."""
    n = len(subject.evidence)
    records = []
    for i, claim in enumerate(subject.draft.claims):
        invalid = [c for c in claim.citations if not 1 <= c <= n]
        if invalid:
            failure, detail = Reason.INVALID_CITATION, f"citations {invalid} outside 1..{n}"
        elif not claim.citations and has_content(claim.text):
            failure, detail = Reason.UNCITED_CLAIM, "claim without citation"
        else:
            failure, detail = None, ""
        records.append(_record("citations", failure, detail, inputs_hash("citations", claim.citations, n), i))
    answer = subject.rendered_answer if subject.rendered_answer is not None else render(list(subject.draft.claims))
    segments = split_segments(answer)
    for segment in segments:
        if not segment.citations and has_content(segment.text):
            records.append(_record("citations", Reason.UNCITED_CLAIM, f"uncited text: {segment.text[:80]!r}",
                                   inputs_hash("segments", answer, n)))
        elif any(not 1 <= c <= n for c in segment.citations):
            records.append(_record("citations", Reason.INVALID_CITATION, "marker outside the evidence list",
                                   inputs_hash("segments", answer, n)))
    return records


def check_numbers(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Per-citation binding: a claim's numbers must appear in the blocks *it* cites."""
    records = []
    for i, claim in enumerate(subject.draft.claims):
        blocks = cited(subject, claim)
        evidence = "\n".join(b.text for b in blocks)
        missing = ungrounded(strip_markers(claim.text), evidence)
        digest = inputs_hash("numbers", claim.text, [b.text for b in blocks])
        detail = f"numbers not in cited text: {missing}" if missing else ""
        records.append(_record("numbers", Reason.UNGROUNDED_NUMBER if missing else None, detail, digest, i))
    return records


def _phrase_present(phrase: str, text_lower: str, text_folded: str) -> bool:
    return phrase in text_lower or fold(phrase) in text_folded


def _language(subject: DraftUnderCheck, check: str, phrases: tuple[str, ...], reason: Reason) -> list[CheckRecord]:
    records = []
    for i, claim in enumerate(subject.draft.claims):
        claim_lower, claim_folded = lowered(claim.text), fold(claim.text)
        evidence = " ".join(b.text for b in cited(subject, claim))
        ev_lower, ev_folded = lowered(evidence), fold(evidence)
        unsupported = [
            p for p in phrases
            if _phrase_present(p, claim_lower, claim_folded) and not _phrase_present(p, ev_lower, ev_folded)
        ]
        digest = inputs_hash(check, claim.text, evidence)
        detail = f"not in cited evidence: {unsupported}" if unsupported else ""
        records.append(_record(check, reason if unsupported else None, detail, digest, i))
    return records


def check_ranking(subject: DraftUnderCheck) -> list[CheckRecord]:
    return _language(subject, "ranking_language", RANKING_PHRASES, Reason.UNSUPPORTED_RANKING_CLAIM)


def check_safety(subject: DraftUnderCheck) -> list[CheckRecord]:
    return _language(subject, "safety_language", SAFETY_PHRASES, Reason.UNSUPPORTED_SAFETY_CLAIM)


def is_verbatim(claim: Claim, blocks: Sequence[Evidence]) -> bool:
    """Whitespace-normalised substring of a cited block; a carried label may prefix the claim."""
    text = normalized(strip_markers(claim.text))
    candidates = [text]
    if claim.label:
        label = normalized(claim.label).rstrip(":").strip()
        for prefix in (f"{label}:", label):
            if text.startswith(prefix):
                candidates.append(text[len(prefix):].strip())
    sources = [normalized(b.text) for b in blocks]
    return any(c and any(c in source for source in sources) for c in candidates)


def check_verbatim(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Deterministic entailment; a claim that fails here is not wrong yet — it needs the judge."""
    records = []
    for i, claim in enumerate(subject.draft.claims):
        blocks = cited(subject, claim)
        digest = inputs_hash("verbatim", claim.text, claim.label, [b.text for b in blocks])
        ok = is_verbatim(claim, blocks)
        records.append(CheckRecord(
            check="verbatim_entailment", outcome=CheckOutcome.PASSED if ok else CheckOutcome.NOT_RUN,
            detail="" if ok else "not verbatim: needs the entailment judge", inputs_sha256=digest, claim_index=i,
        ))
    return records


DETERMINISTIC_CHECKS = (
    check_schema, check_visual, check_candidates, check_citations, check_numbers, check_ranking, check_safety,
    check_verbatim,
)


def run_deterministic_checks(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Every deterministic check, in priority order; the first failure names the verdict's reason."""
    records: list[CheckRecord] = []
    for check in DETERMINISTIC_CHECKS:
        records.extend(check(subject))
        if check is check_schema and records[-1].outcome is CheckOutcome.FAILED:
            break  # later checks would index into a malformed draft
    return records


def first_failure(records: Sequence[CheckRecord]) -> CheckRecord | None:
    return next((r for r in records if r.outcome is CheckOutcome.FAILED), None)
