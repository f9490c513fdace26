"""The deterministic checks of a draft (no model, no I/O).

Each check returns :class:`CheckRecord` s carrying a hash of exactly the
inputs it looked at, so an audit can re-run the same check on the recorded
messages and compare outcomes (``duocthu audit reverify``).  The public entry
point is :func:`run_deterministic_checks`.

Order is priority: schema, visual evidence, candidate set, citations, bare
numbers, ranking and safety language, then the binding of each claim to one
passage (quantities, population, label — ``binding.py``), specific terms
(``terms.py``), and last the verbatim test that decides whether the judge is
needed at all.  Everything before the judge must hold for a judge that says
yes to everything (issue 17): the judge only ever adds a refusal.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_contracts.answer import CheckOutcome, CheckRecord, Claim, Draft, TermBasis
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_verifier.domain.binding import Binding, bind, verbatim
from duocthu_verifier.domain.numbers import ungrounded
from duocthu_verifier.domain.passages import EvidenceReading
from duocthu_verifier.domain.phrases import unsupported
from duocthu_verifier.domain.rendering import has_content, render, split_segments
from duocthu_verifier.domain.terms import TermContext, new_specific_terms, terms
from duocthu_verifier.domain.text import strip_markers

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
    #: The live release's term statistics and everyday-word frequencies (absent: every new term is specific).
    terms: TermContext = field(default_factory=TermContext)

    @functools.cached_property
    def reading(self) -> EvidenceReading:
        """This draft's evidence read once per block, shared by every claim and check (issue 20)."""
        return EvidenceReading(self.evidence)


def inputs_hash(*parts: object) -> str:
    body = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _record(check: str, failure: Reason | None, detail: str, digest: str, claim: int | None = None, *,
            basis: TermBasis | None = None) -> CheckRecord:
    return CheckRecord(
        check=check,
        outcome=CheckOutcome.FAILED if failure else CheckOutcome.PASSED,
        reason=failure,
        detail=detail,
        inputs_sha256=digest,
        claim_index=claim,
        term_basis=basis,
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
    answer = render(list(subject.draft.claims))
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


def _cited_texts(blocks: Sequence[Evidence]) -> list[tuple[str, list[str]]]:
    return [(b.text, list(b.context_labels)) for b in blocks]


def check_binding(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Each claim bound to one passage: its quantities, then its population words, then its label.

    One binding per claim yields three groups of records, in that order, so
    the verdict names the first property that failed (``binding.py``).
    """
    bindings: list[Binding] = [bind(claim, subject.evidence, subject.reading) for claim in subject.draft.claims]
    groups: dict[str, list[CheckRecord]] = {"quantity_binding": [], "population_binding": [], "label_binding": []}
    for i, (claim, binding) in enumerate(zip(subject.draft.claims, bindings, strict=True)):
        cited_texts = _cited_texts(cited(subject, claim))
        for check, records in groups.items():
            digest = inputs_hash(check, claim.text, claim.label, cited_texts)
            failure: Reason | None = None
            detail = ""
            if check == "quantity_binding" and not binding.quantities_bound:
                failure = Reason.UNBOUND_QUANTITY
                detail = "no single cited sentence or row prints these quantities with these units in this " \
                         f"order: {[str(q) for q in binding.unbound]}"
            elif check == "population_binding" and not binding.population_bound:
                failure = Reason.POPULATION_MISMATCH
                detail = f"population not carried by the bound passage or its labels: " \
                         f"{sorted(binding.foreign_populations)}"
            elif check == "label_binding" and not binding.label_bound:
                failure = Reason.UNSUPPORTED_LABEL
                detail = f"label {claim.label!r} is not a label in force over the bound passage"
            records.append(_record(check, failure, detail, digest, i))
    return [r for group in groups.values() for r in group]


def _language(subject: DraftUnderCheck, check: str, phrases: tuple[str, ...], reason: Reason) -> list[CheckRecord]:
    """Ranking/safety phrases of a claim that its cited blocks do not print (the label is checked verbatim)."""
    records = []
    for i, claim in enumerate(subject.draft.claims):
        evidence = " ".join(b.text for b in cited(subject, claim))
        missing = unsupported(claim.text, evidence, phrases)
        digest = inputs_hash(check, claim.text, claim.label, evidence)
        detail = f"not in cited evidence: {missing}" if missing else ""
        records.append(_record(check, reason if missing else None, detail, digest, i))
    return records


def check_ranking(subject: DraftUnderCheck) -> list[CheckRecord]:
    return _language(subject, "ranking_language", RANKING_PHRASES, Reason.UNSUPPORTED_RANKING_CLAIM)


def check_safety(subject: DraftUnderCheck) -> list[CheckRecord]:
    return _language(subject, "safety_language", SAFETY_PHRASES, Reason.UNSUPPORTED_SAFETY_CLAIM)


def block_terms(block: Evidence) -> set[str]:
    """What one block names: its text, drug name, section title and carried labels."""
    return terms(" \n ".join([block.text, block.drug_name, block.section_title, *block.context_labels]))


def _cited_terms(subject: DraftUnderCheck, claim: Claim, named: dict[int, set[str]]) -> set[str]:
    """What the claim's cited blocks name, each block's terms kept in ``named`` (by citation index) for the
    next claims: the claims of a draft mostly cite the same blocks (issue 20)."""
    found: set[str] = set()
    for index in claim.citations:
        if 1 <= index <= len(subject.evidence):
            own = named.get(index)
            if own is None:
                own = named[index] = block_terms(subject.evidence[index - 1])
            found |= own
    return found


def check_terms(subject: DraftUnderCheck) -> list[CheckRecord]:
    """No claim brings in a term that is specific in the live release and absent from its cited blocks.

    The record keeps the release id, the statistics' digest and the document
    frequency of every term it looked up, so ``duocthu audit reverify`` re-runs
    the check from the record alone and an auditor can compare the digest
    with the release.
    """
    stats = subject.terms.statistics
    background = subject.terms.background
    named: dict[int, set[str]] = {}
    records = []
    for i, claim in enumerate(subject.draft.claims):
        blocks = cited(subject, claim)
        finding = new_specific_terms(strip_markers(claim.text), _cited_terms(subject, claim, named), stats,
                                     background)
        basis = TermBasis(
            release_id=stats.release_id if stats else None, statistics_sha256=stats.sha256 if stats else "",
            documents=stats.documents if stats else 0, specific_limit=stats.specific_limit() if stats else 0,
            document_frequency=finding.consulted, background=subject.terms.background_id if background else "",
            general_zipf=finding.everyday,
        )
        digest = inputs_hash("terms", claim.text, claim.label, _cited_texts(blocks),
                             [(b.drug_name, b.section_title) for b in blocks], basis.model_dump(mode="json"))
        detail = f"specific terms absent from the cited blocks: {list(finding.specific)}" if finding.specific else ""
        records.append(_record("specific_terms", Reason.UNSUPPORTED_TERM if finding.specific else None, detail,
                               digest, i, basis=basis))
    return records


def check_verbatim(subject: DraftUnderCheck) -> list[CheckRecord]:
    """Deterministic entailment; a claim that fails here is not wrong yet — it needs the judge."""
    records = []
    for i, claim in enumerate(subject.draft.claims):
        blocks = cited(subject, claim)
        digest = inputs_hash("verbatim", claim.text, claim.label, _cited_texts(blocks))
        ok = verbatim(claim, subject.evidence, subject.reading)
        records.append(CheckRecord(
            check="verbatim_entailment", outcome=CheckOutcome.PASSED if ok else CheckOutcome.NOT_RUN,
            detail="" if ok else "not verbatim: needs the entailment judge", inputs_sha256=digest, claim_index=i,
        ))
    return records


DETERMINISTIC_CHECKS = (
    check_schema, check_visual, check_candidates, check_citations, check_numbers, check_ranking, check_safety,
    check_binding, check_terms, check_verbatim,
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
