"""Reading each cited block once per draft changes no outcome (issue 20).

The verifier keeps one reading of a draft's evidence (paragraphs, normalised
text, terms) for all its claims, and folds a claim's evidence only when the
claim uses a ranking or safety phrase.  These tests hold the checks of a
claim in a many-claim draft to the checks of the same claim alone, and the
phrase check to its plain per-phrase definition.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from duocthu_cli.eval.verifier import load_paraphrases
from duocthu_cli.eval.verifier_attacks import attacks
from duocthu_contracts.answer import AnswerPlan, CheckRecord, Claim, Draft
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_verifier.application.verification import subject_of
from duocthu_verifier.domain.binding import bind
from duocthu_verifier.domain.checks import RANKING_PHRASES, SAFETY_PHRASES, run_deterministic_checks
from duocthu_verifier.domain.passages import EvidenceReading
from duocthu_verifier.domain.phrases import Folded, unsupported
from tests.fixtures.verifier import make_evidence, sample_terms
from tests.verifier.test_passages import PART0, PART1, SEAM

PER_CLAIM = {"numbers", "ranking_language", "safety_language", "quantity_binding", "population_binding",
             "label_binding", "specific_terms", "verbatim_entailment"}


def _checks(claims: list[Claim], evidence: list[Evidence]) -> list[CheckRecord]:
    payload = AnswerDraftedPayload(
        query="câu hỏi", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION,
        evidence=evidence, plan=AnswerPlan(), draft=Draft(claims=claims, generated=True))
    return run_deterministic_checks(subject_of(payload, sample_terms()))


def _per_claim(records: list[CheckRecord], index: int) -> list[dict[str, object]]:
    return [r.model_copy(update={"claim_index": 0}).model_dump(mode="json") for r in records
            if r.check in PER_CLAIM and r.claim_index == index]


def _claims_over(evidence: Evidence) -> list[Claim]:
    """Honest and lying claims over one section: its sentences verbatim, the paraphrases, the attacks."""
    sentences = [Claim(text=line, citations=[1]) for line in evidence.text.split("\n")[:6] if line.strip()]
    lying = [a.claim for a in attacks() if a.evidence.evidence_id == evidence.evidence_id]
    honest = [p.claim for p in load_paraphrases() if p.evidence.evidence_id == evidence.evidence_id]
    return [*sentences, *honest, *lying]


def test_a_claim_checked_among_others_is_checked_as_if_alone() -> None:
    for drug, section in [("paracetamol", "lieu_luong_va_cach_dung"), ("amoxicilin", "lieu_luong_va_cach_dung"),
                          ("metformin", "chong_chi_dinh")]:
        evidence = [make_evidence(drug, section)]
        claims = _claims_over(evidence[0])
        assert len(claims) > 6
        together = _checks(claims, evidence)
        for i, claim in enumerate(claims):
            assert _per_claim(together, i) == _per_claim(_checks([claim], evidence), 0), claim.text


def test_claims_over_parts_and_seams_are_bound_as_with_a_fresh_reading() -> None:
    evidence = [PART0, PART1, SEAM]
    claims = [
        Claim(text="Người lớn: 500 mg/lần, ngày 2 lần.", citations=[1], label="Người lớn"),
        Claim(text="Người lớn: 1 g/lần, ngày 1 lần.", citations=[2], label="Tiêm tĩnh mạch"),
        Claim(text="Trẻ em từ 6 đến 12 tuổi uống 250 mg/lần, ngày 2 lần.", citations=[2], label="Đường uống"),
        Claim(text="Trẻ em dưới 6 tuổi: 10 mg/kg/lần, ngày 2 lần.", citations=[3]),
        Claim(text="Người lớn dùng 10 mg/kg/lần.", citations=[3, 1]),
        Claim(text="Uống sau ăn, 500 mg/lần.", citations=[1, 2, 3]),
    ]
    shared = EvidenceReading(evidence)
    for claim in claims:
        assert bind(claim, evidence, shared) == bind(claim, evidence), claim.text
    together = _checks(claims, evidence)
    for i, claim in enumerate(claims):
        assert _per_claim(together, i) == _per_claim(_checks([claim], evidence), 0), claim.text


_WORDS = ["an toàn", "an toan", "hoàn toàn", "không", "có", "tương tác", "tuong tac", "tốt nhất", "tot nhat",
          "lựa chọn", "đầu tay", "safe", "safety", "first-line", "thuốc", "ưu tiên", "được", "hại", "vô", "Vô hại",
          "AN TOÀN", "an", "toàn", ".", ",", "-", "x"]
_text = st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join)


@given(_text, _text)
def test_the_phrase_check_is_the_per_phrase_definition(claim: str, evidence: str) -> None:
    for phrases in (RANKING_PHRASES, SAFETY_PHRASES):
        c, e = Folded.of(claim), Folded.of(evidence)
        assert unsupported(claim, evidence, phrases) == [p for p in phrases
                                                         if c.mentions(p) and not e.supports(p, c)]
