"""Population bands of printed dose labels against patient facts (labels copied from the sample formulary)."""

from __future__ import annotations

import pytest

from duocthu_contracts.frame import PatientContext, QueryFrame, TurnType
from duocthu_generation.domain.bands import Facts, Verdict, facts_of, judge, parse

YES, NO, UNKNOWN = Verdict.YES, Verdict.NO, Verdict.UNKNOWN


def test_ranges_keep_their_printed_bounds() -> None:
    [band] = parse("Trẻ em từ 3 tháng đến dưới 1 tuổi").ages
    assert band.contains(0.5) and not band.contains(1.0) and not band.contains(0.2)
    [band] = parse("Trẻ em cân nặng trên 10 kg đến 33 kg").weights
    assert band.contains(33) and not band.contains(10)
    [band] = parse("Người lớn cân nặng dưới 50 kg").weights
    assert band.contains(49.9) and not band.contains(50)
    [band] = parse("Suy thận (Clcr 10 – 50 ml/phút)").renal
    assert band.contains(25) and band.contains(50) and not band.contains(9)
    assert parse("Trẻ sơ sinh từ 32 tuần tuổi thai hiệu chỉnh trở lên").ages == ()
    [band] = parse("Trẻ sơ sinh từ 7 đến 28 ngày tuổi").ages
    assert band.contains(14 / 365) and not band.contains(0.5)


@pytest.mark.parametrize(("label", "facts", "verdict"), [
    # a child of 15 kg: the adult under-50-kg line is another population
    ("Người lớn cân nặng dưới 50 kg", Facts(weight_kg=15, groups=frozenset({"tre em"})), NO),
    ("Người lớn và trẻ em cân nặng từ 50 kg", Facts(weight_kg=15, groups=frozenset({"tre em"})), NO),
    ("Trẻ em cân nặng trên 10 kg đến 33 kg", Facts(weight_kg=15, groups=frozenset({"tre em"})), YES),
    ("Trẻ em từ 1 tháng đến dưới 12 tuổi", Facts(weight_kg=15, groups=frozenset({"tre em"})), UNKNOWN),
    ("Trẻ sơ sinh từ 32 tuần tuổi thai hiệu chỉnh trở lên", Facts(weight_kg=15, groups=frozenset({"tre em"})), NO),
    ("Trẻ sơ sinh đủ tháng và trẻ em đến 10 kg", Facts(weight_kg=15, groups=frozenset({"tre em"})), NO),
    # ages
    ("Trẻ em từ 1 đến 5 tuổi", Facts(age_years=3), YES),
    ("Trẻ em từ 6 đến 12 tuổi", Facts(age_years=3), NO),
    ("Người lớn", Facts(age_years=3), NO),
    ("Người lớn", Facts(age_years=40), YES),
    ("Người cao tuổi", Facts(age_years=40), NO),
    ("Người cao tuổi", Facts(age_years=72), YES),
    ("Người lớn và trẻ em từ 12 tuổi trở lên", Facts(groups=frozenset({"nguoi lon"})), YES),
    ("Trẻ em từ 10 đến 17 tuổi", Facts(groups=frozenset({"nguoi lon"})), NO),
    # renal function: only a patient with impaired function falls in a renal band
    ("Suy thận (Clcr 10 – 50 ml/phút)", Facts(age_years=72, crcl=25, renal_impaired=True), YES),
    ("Suy thận (Clcr dưới 10 ml/phút)", Facts(age_years=72, crcl=25, renal_impaired=True), NO),
    ("Suy thận (Clcr dưới 10 ml/phút)", Facts(age_years=40), NO),
    ("Suy thận (Clcr dưới 10 ml/phút)", Facts(renal_impaired=True), UNKNOWN),
    ("Suy thận", Facts(renal_impaired=True), YES),
    ("Suy thận (Clcr 30 – 80 ml/phút)", Facts(crcl=25, renal_impaired=True), NO),
    # other states
    ("Suy gan", Facts(age_years=50), NO),
    ("Suy gan", Facts(hepatic_impaired=True), YES),
    ("Phụ nữ mang thai có nguy cơ cao tiền sản giật", Facts(pregnant=True, age_years=30), YES),
    ("Phụ nữ mang thai có nguy cơ cao tiền sản giật", Facts(age_years=30), NO),
])
def test_judge(label: str, facts: Facts, verdict: Verdict) -> None:
    assert judge(label, facts) is verdict


def test_facts_come_from_the_frame_and_its_patient_context() -> None:
    frame = QueryFrame(turn_type=TurnType.DOSING_CALC, population="Trẻ em", weight_kg=15.0,
                       patient_context=PatientContext(egfr=25.0, hepatic_impairment=True))
    facts = facts_of(frame)
    assert facts.weight_kg == 15.0 and facts.crcl == 25.0 and facts.renal_impaired and facts.hepatic_impaired
    assert facts.groups == {"tre em"} and facts.given
    assert not facts_of(QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE)).given


def test_a_band_printed_as_from_a_value_on_and_the_named_elderly() -> None:
    from_30 = "Suy thận (Clcr 30 ml/phút trở lên)"
    assert judge(from_30, Facts(crcl=40.0, renal_impaired=True)) is Verdict.YES
    assert judge(from_30, Facts(crcl=20.0, renal_impaired=True)) is Verdict.NO
    assert judge("Trẻ em cân nặng từ 40 kg trở lên", Facts(weight_kg=20.0)) is Verdict.NO  # "40", not "0"
    assert judge("Người cao tuổi (trên 65 tuổi)", Facts(groups=frozenset({"nguoi cao tuoi"}))) is Verdict.YES
