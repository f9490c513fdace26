"""The deterministic answer checker and the shipped battery's shape."""

from __future__ import annotations

from typing import Any

from duocthu_cli.eval.cases import ADVERSARIAL, Expect, focus_cases_path, load_cases
from duocthu_cli.eval.checker import check_response
from duocthu_contracts.http import DISCLAIMER

EVIDENCE = "Người lớn: 500 mg – 1 g/lần, cách nhau 4 – 6 giờ khi cần; tối đa 4 g/ngày."


def response(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "decision": "answerable", "reason": "verified", "disclaimer": DISCLAIMER,
        "claims": [{"text": EVIDENCE, "citations": [1], "drug_id": "paracetamol"}],
        "citations": [{"index": 1, "drug_id": "paracetamol", "section_key": "lieu_luong_va_cach_dung",
                       "text": EVIDENCE}],
        "resolved_drug_ids": ["paracetamol"], "quick_replies": [], "answer": EVIDENCE + " [1]",
    }
    base.update(overrides)
    return base


EXPECT = Expect(decision=["answerable"], cited_drugs=["paracetamol"], cited_sections=["lieu_luong_va_cach_dung"])


def test_a_grounded_answer_passes() -> None:
    assert check_response(EXPECT, response()) == []


def test_a_number_not_in_the_cited_text_fails() -> None:
    bad = response(claims=[{"text": "Người lớn: 7,5 g/lần.", "citations": [1], "drug_id": "paracetamol"}])
    assert any("7,5" in f for f in check_response(EXPECT, bad))


def test_decimal_separator_matters() -> None:
    text = "Tối đa 4.0 g/ngày."
    bad = response(claims=[{"text": text, "citations": [1]}])
    assert any("4.0" in f for f in check_response(EXPECT, bad))


def test_uncited_claim_and_missing_expected_section_fail() -> None:
    bad = response(claims=[{"text": "Dùng khi sốt.", "citations": []}],
                   citations=[{"index": 1, "drug_id": "paracetamol", "section_key": "chi_dinh", "text": "Sốt."}])
    failures = check_response(EXPECT, bad)
    assert any("no valid citation" in f for f in failures)
    assert any("lieu_luong_va_cach_dung not cited" in f for f in failures)


def test_ranking_and_safety_language_need_verbatim_support() -> None:
    bad = response(claims=[{"text": "Paracetamol là lựa chọn đầu tay, an toàn tuyệt đối.", "citations": [1]}])
    failures = check_response(EXPECT, bad)
    assert any("lựa chọn đầu tay" in f for f in failures)
    assert any("an toàn tuyệt đối" in f for f in failures)


def test_decision_reason_disclaimer_and_forbidden_drugs() -> None:
    expect = Expect(decision=["abstain"], reason=["unknown_drug"], forbidden_drugs=["paracetamol"])
    failures = check_response(expect, response(disclaimer="x"))
    assert any("decision" in f for f in failures)
    assert any("reason" in f for f in failures)
    assert any("disclaimer" in f for f in failures)
    assert any("forbidden drugs" in f for f in failures)
    ok = {"decision": "abstain", "reason": "unknown_drug", "disclaimer": DISCLAIMER, "claims": [], "citations": []}
    assert check_response(expect, ok) == []


def test_claim_citing_another_drugs_block_fails() -> None:
    bad = response(claims=[{"text": EVIDENCE, "citations": [1], "drug_id": "ibuprofen"}])
    assert any("another drug" in f for f in check_response(EXPECT, bad))


def test_only_sections_and_cap() -> None:
    expect = Expect(decision=["answerable"], only_sections=["chi_dinh"], max_drugs=1)
    citations = [{"index": 1, "drug_id": "a", "section_key": "chi_dinh", "text": "x"},
                 {"index": 2, "drug_id": "b", "section_key": "chong_chi_dinh", "text": "y"}]
    claims = [{"text": "x", "citations": [1], "drug_id": "a"}, {"text": "y", "citations": [2], "drug_id": "b"}]
    failures = check_response(expect, response(claims=claims, citations=citations))
    assert any("outside" in f for f in failures)
    assert any("cap 1" in f for f in failures)


def test_shipped_battery_has_the_required_size_and_categories() -> None:
    cases = load_cases()
    golden = [c for c in cases if c.category not in ADVERSARIAL]
    adversarial = [c for c in cases if c.category in ADVERSARIAL]
    assert len(golden) >= 60
    assert len(adversarial) >= 20
    required = {"general_condition", "specific_condition", "ambiguity", "relation_confusion", "comorbidity",
                "current_medication", "pregnancy_lactation", "renal_hepatic", "allergy", "named_drug",
                "interaction", "conversation"}
    assert required <= {c.category for c in golden}
    assert {"fabricated_name", "veterinary", "injection", "price", "double_dose", "prompt_extraction"} <= {
        c.category for c in adversarial}
    assert any(len(c.turns) > 1 for c in cases), "conversation continuation and reset need multi-turn cases"


def test_the_focus_checks_aim_at_the_patient() -> None:
    child = "Trẻ em từ 1 đến 5 tuổi: 120 – 250 mg/lần."
    claims = [{"text": EVIDENCE, "citations": [1], "drug_id": "paracetamol"},
              {"text": child, "citations": [1], "drug_id": "paracetamol"}]
    both = response(claims=claims, citations=[{"index": 1, "drug_id": "paracetamol",
                                               "section_key": "lieu_luong_va_cach_dung", "text": EVIDENCE + child}])
    aimed = Expect(decision=["answerable"], must_appear=["Trẻ em từ 1 đến 5 tuổi"], must_not_lead=["Người lớn"],
                   max_claims=1)
    failures = check_response(aimed, both)
    assert any("first claim" in f for f in failures) and any("at most 1" in f for f in failures)
    assert check_response(aimed, response(claims=claims[1:], citations=both["citations"])) == []
    assert any("no claim contains" in f for f in check_response(aimed, response()))


def test_a_drug_excluded_by_its_contraindication_must_say_so_first() -> None:
    contra = "Người bệnh có tiền sử quá mẫn với bất kỳ penicilin nào."
    indication = "Viêm phổi mắc phải ở cộng đồng."
    citations = [{"index": 1, "drug_id": "amoxicilin", "section_key": "chi_dinh", "text": indication},
                 {"index": 2, "drug_id": "amoxicilin", "section_key": "chong_chi_dinh", "text": contra}]
    offered = [{"text": indication, "citations": [1], "drug_id": "amoxicilin"},
               {"text": contra, "citations": [2], "drug_id": "amoxicilin"}]
    expect = Expect(decision=["answerable"], excluded_first=["amoxicilin"])
    assert any("before its contraindication" in f for f in check_response(expect, response(
        claims=offered, citations=citations)))
    assert check_response(expect, response(claims=offered[::-1], citations=citations)) == []


def test_the_focus_battery_has_the_required_size_and_categories() -> None:
    cases = load_cases(focus_cases_path())
    assert len(cases) >= 80
    assert {"population", "renal_band", "condition_dose", "condition_list", "patient_case", "overview",
            "table_text"} <= {c.category for c in cases}
    assert all(c.turns[0].expect.must_appear or c.turns[0].expect.cited_drugs or c.turns[0].expect.cited_sections
               or c.turns[0].expect.decision != ["answerable"] or c.turns[0].expect.forbidden_text for c in cases)
