"""The API shows a claim's label only when the verifier bound it to the label printed over the claim's passage."""

from __future__ import annotations

from datetime import timedelta

from duocthu_contracts.answer import AnswerPlan, Claim, Draft, Verdict
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_gateway.domain.responses import verified_label
from duocthu_providers import TurnBudget
from duocthu_runtime import utcnow
from duocthu_verifier import subject_of, verify
from tests.fixtures.verifier import make_evidence, sample_terms

DOSE = make_evidence("paracetamol", "lieu_luong_va_cach_dung")
ADULT = next(p for p in DOSE.text.split("\n") if p.startswith("Người lớn cân nặng dưới 50 kg"))


async def _verdict(claim: Claim) -> Verdict:
    payload = AnswerDraftedPayload(
        query="q", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION, evidence=[DOSE],
        plan=AnswerPlan(), draft=Draft(claims=[claim]))
    budget = TurnBudget(deadline=utcnow() + timedelta(seconds=10), calls_left=0)
    return await verify(subject_of(payload, sample_terms()), payload.query, None, budget)


async def test_a_label_in_force_over_the_passage_is_shown() -> None:
    claim = Claim(text=ADULT, citations=[1], label="Đường uống")
    verdict = await _verdict(claim)
    assert verdict.accepted
    assert verified_label(0, claim, verdict) == "Đường uống"


async def test_a_lying_label_is_rejected_and_never_shown() -> None:
    claim = Claim(text=ADULT, citations=[1], label="An toàn cho phụ nữ có thai; lựa chọn đầu tay; liều 5000 mg")
    verdict = await _verdict(claim)
    assert verdict.reason is Reason.UNSUPPORTED_LABEL
    assert verified_label(0, claim, verdict) is None


def test_no_label_without_a_label_binding_record() -> None:
    claim = Claim(text=ADULT, citations=[1], label="Đường uống")
    assert verified_label(0, claim, Verdict(accepted=True, reason=Reason.VERIFIED, checks=[])) is None
    assert verified_label(0, claim, None) is None
