"""The extractive writer on the sample corpus: verbatim claims, population-labelled doses, clarify from labels."""

from __future__ import annotations

import pytest

from duocthu_contracts.answer import AnswerPlan
from duocthu_contracts.evidence import (
    CandidateAssessment,
    CandidateStatus,
    Evidence,
    Route,
    SafetyAspect,
    SafetyFinding,
)
from duocthu_contracts.frame import PatientContext, QueryFrame, TurnType
from duocthu_contracts.sections import SECTION_ORDER, SectionKey
from duocthu_corpus.monograph import load_all
from duocthu_generation.domain.extractive import write
from duocthu_generation.domain.overview import SECTIONS as OVERVIEW_LIMITS
from duocthu_generation.domain.paragraphs import paragraphs
from duocthu_generation.domain.patient_case import names
from duocthu_generation.domain.plan import make_plan
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_text.vietnamese import condition_coverage, fold
from tests.fixtures.verifier import make_evidence

DOSE = SectionKey.LIEU_LUONG_VA_CACH_DUNG


def dose_frame(**kw: object) -> QueryFrame:
    return QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=DOSE, standalone_query="liều", **kw)  # type: ignore[arg-type]


def draft_for(frame: QueryFrame, evidence: list[Evidence], route: Route = Route.A_SECTION, **kw: object):  # type: ignore[no-untyped-def]
    plan = make_plan(frame, evidence, route, list_mode=bool(kw.get("candidate_drug_ids")))
    return write(WriterInput(frame=frame, evidence=evidence, route=route, plan=plan, **kw))  # type: ignore[arg-type]


def assert_verbatim(draft_claims: list, evidence: list[Evidence]) -> None:  # type: ignore[type-arg]
    for claim in draft_claims:
        assert claim.citations, claim
        assert any(claim.text in evidence[i - 1].text for i in claim.citations), claim.text


SECTIONS = [(m.drug_id, key) for m in load_all() for key in m.sections
            if key is not DOSE and m.prose(key)][:400]


@pytest.mark.parametrize(("drug_id", "section"), SECTIONS[::7])
def test_every_section_type_is_answered_verbatim(drug_id: str, section: SectionKey) -> None:
    evidence = [make_evidence(drug_id, section)]
    draft = draft_for(QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=section), evidence)
    assert draft.claims and not draft.generated
    assert_verbatim(list(draft.claims), evidence)


def test_all_section_keys_are_covered_by_the_parametrisation() -> None:
    covered = {key for _, key in SECTIONS[::7]}
    assert len(covered) >= len(SECTION_ORDER) // 2


@pytest.mark.parametrize(("kw", "must", "never"), [
    ({"age_years": 3.0}, ["Trẻ em từ 1 đến 5 tuổi"], ["Người lớn", "Trẻ em từ 6 đến 12 tuổi"]),
    ({"population": "Trẻ em", "weight_kg": 20.0}, ["Trẻ em cân nặng trên 10 kg đến 33 kg"], ["Người lớn cân nặng dưới 50 kg"]),
    ({"population": "Người cao tuổi"}, ["Người cao tuổi"], ["Trẻ em"]),
    ({"population": "Trẻ em", "age_years": 8.0, "route": "đường trực tràng"}, ["Trẻ em từ 6 đến 12 tuổi"],
     ["Trẻ em từ 1 đến 5 tuổi", "Người lớn"]),
])
def test_dose_claims_keep_only_the_asked_population(kw: dict[str, object], must: list[str],
                                                    never: list[str]) -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    draft = draft_for(dose_frame(**kw), evidence)
    assert draft.claims, draft
    assert_verbatim(list(draft.claims), evidence)
    texts = [c.text for c in draft.claims]
    for label in must:
        assert any(t.startswith(label) for t in texts), (label, texts)
    for label in never:
        assert not any(t.startswith(label) for t in texts), (label, texts)


def test_rectal_route_restricts_the_dose_to_that_route() -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    draft = draft_for(dose_frame(age_years=8.0, route="đường trực tràng"), evidence)
    assert {c.label for c in draft.claims} == {"Đường trực tràng"}


def test_dose_without_population_asks_with_the_printed_labels() -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    draft = draft_for(dose_frame(), evidence)
    assert not draft.claims and draft.clarifying_question
    assert 2 <= len(draft.quick_replies) <= 4 and len(set(draft.quick_replies)) == len(draft.quick_replies)
    text = fold(evidence[0].text)
    assert all(fold(r) in text for r in draft.quick_replies)
    assert draft.quick_replies[:2] == ["Người lớn", "Trẻ em"]


def test_a_child_by_weight_never_gets_the_adult_line() -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    draft = draft_for(dose_frame(population="Trẻ em", weight_kg=15.0, route="đường uống"), evidence)
    texts = [c.text for c in draft.claims]
    assert texts and texts[0].startswith("Trẻ em từ 1 tháng đến dưới 12 tuổi"), texts
    assert not any(t.startswith(("Người lớn", "Trẻ sơ sinh")) or "Khi không biết cân nặng" in t for t in texts)


def test_a_renal_patient_gets_the_renal_band_first_and_not_the_other_renal_band() -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    frame = dose_frame(age_years=72.0, route="đường uống",
                       patient_context=PatientContext(age_years=72.0, crcl_ml_min=25.0, ckd=True))
    texts = [c.text for c in draft_for(frame, evidence).claims]
    assert texts[0].startswith("Suy thận (Clcr 10 – 50 ml/phút)"), texts
    assert not any(t.startswith(("Suy thận (Clcr dưới 10", "Trẻ em", "Suy gan")) for t in texts)


def test_the_condition_picks_its_own_dose_line() -> None:
    evidence = [make_evidence("diclofenac", DOSE)]
    texts = [c.text for c in draft_for(dose_frame(population="Người lớn", condition="gút cấp"), evidence).claims]
    assert texts and all(t.startswith("Người lớn (gút cấp)") for t in texts), texts


def test_carried_labels_scope_a_continuation_chunk() -> None:
    base = make_evidence("paracetamol", DOSE)
    tail = base.text.split("\n")[-2:]
    continuation = base.model_copy(update={"text": "Tiêm truyền tĩnh mạch: " + "\n".join(tail),
                                           "context_labels": ["Tiêm truyền tĩnh mạch:"], "part_index": 1})
    [*_, last] = paragraphs([continuation])
    assert last.route == "Tiêm truyền tĩnh mạch" and last.text == tail[-1]


def test_candidate_list_cites_indications_and_findings() -> None:
    evidence = [make_evidence("paracetamol", SectionKey.CHI_DINH), make_evidence("ibuprofen", SectionKey.CHI_DINH),
                make_evidence("paracetamol", SectionKey.TUONG_TAC_THUOC)]
    finding = SafetyFinding(aspect=SafetyAspect.INTERACTION, evidence_ids=[evidence[2].evidence_id],
                            matched_terms=["warfarin"])
    frame = QueryFrame(turn_type=TurnType.CONDITION_TO_DRUG, condition="sốt",
                       patient_context=PatientContext())
    draft = draft_for(frame, evidence, Route.C_CONDITION, candidate_drug_ids=["paracetamol", "ibuprofen"],
                      assessments=[CandidateAssessment(drug_id="paracetamol", drug_name="PARACETAMOL",
                                                       status=CandidateStatus.SUPPORTED_WITH_CAUTION,
                                                       findings=[finding])])
    assert {c.drug_id for c in draft.claims} == {"paracetamol", "ibuprofen"}
    assert any(c.citations == [3] and "warfarin" in c.text.lower() for c in draft.claims)
    assert_verbatim(list(draft.claims), evidence)


def test_interaction_claims_name_the_other_drug() -> None:
    evidence = [make_evidence("warfarin", SectionKey.TUONG_TAC_THUOC),
                make_evidence("paracetamol", SectionKey.TUONG_TAC_THUOC)]
    frame = QueryFrame(turn_type=TurnType.INTERACTION)
    draft = draft_for(frame, evidence, Route.D_INTERACTION)
    assert draft.claims
    assert all("paracetamol" in fold(c.text) or "warfarin" in fold(c.text) for c in draft.claims)


def test_repair_covers_the_missing_quote() -> None:
    evidence = [make_evidence("paracetamol", SectionKey.CHONG_CHI_DINH)]
    quote = evidence[0].text.split("\n")[-1][:30]
    frame = QueryFrame(turn_type=TurnType.DRUG_OVERVIEW)
    plan = AnswerPlan(verbosity="short")
    draft = write(WriterInput(frame=frame, evidence=evidence, route=Route.B_OVERVIEW, plan=plan, must_cover=[quote]))
    assert any(quote in c.text for c in draft.claims)


@pytest.mark.parametrize(("condition", "drug_id", "starts"), [
    ("đau đầu", "acid_acetylsalicylic", "Đau nhẹ đến vừa và sốt ở người lớn (đau đầu"),
    ("đau đầu", "paracetamol", "Đau nhẹ đến vừa: đau đầu"),
    ("đau nửa đầu", "paracetamol", "Đau nửa đầu:"),
    ("gút cấp", "colchicin", None),
])
def test_the_indication_claim_is_the_sentence_naming_the_condition(condition: str, drug_id: str,
                                                                    starts: str | None) -> None:
    evidence = [make_evidence(drug_id, SectionKey.CHI_DINH)]
    frame = QueryFrame(turn_type=TurnType.CONDITION_TO_DRUG, condition=condition)
    draft = draft_for(frame, evidence, Route.C_CONDITION, candidate_drug_ids=[drug_id])
    [claim] = draft.claims
    assert_verbatim([claim], evidence)
    assert claim.text.startswith(starts) if starts else fold(condition) in fold(claim.text)
    first = evidence[0].text.split("\n")[0]
    assert fold(condition) in fold(claim.text) or not claim.text.startswith(first[:40])


@pytest.mark.parametrize(("drug_id", "kw", "must", "never"), [
    # a condition with no patient facts: the line labelled for it, with its printed population
    ("ibuprofen", {"condition": "gút cấp"}, ["Người lớn (gút cấp)"], ["Trẻ em"]),
    ("amoxicilin", {"condition": "Helicobacter pylori"}, ["Người lớn (nhiễm Helicobacter pylori)"], ["Trẻ em"]),
    # a weight band refines the general adult line, which then is left out
    ("paracetamol", {"population": "Người lớn", "weight_kg": 45.0}, ["Người lớn cân nặng dưới 50 kg"],
     ["Người lớn và trẻ em từ 12 tuổi", "Trẻ em"]),
    # an age band over a line printed for one condition
    ("ibuprofen", {"age_years": 8.0, "population": "Trẻ em"}, ["Trẻ em từ 3 tháng đến dưới 12 tuổi"],
     ["Trẻ em (viêm khớp", "Người lớn"]),
    # no condition asked: the general adult lines, not those printed for one condition
    ("diclofenac", {"population": "Người cao tuổi"}, ["Người cao tuổi", "Người lớn:"],
     ["Người lớn (gút cấp)", "Người lớn (đau nửa đầu)", "Trẻ em"]),
    # a child's line whose label is long (13 words) is still the child's, never the adult's
    ("omeprazol", {"population": "Người lớn"}, ["Loét tá tràng"], ["Trẻ em", "Suy gan"]),
])
def test_population_and_condition_pick_the_printed_band(drug_id: str, kw: dict[str, object], must: list[str],
                                                        never: list[str]) -> None:
    evidence = [make_evidence(drug_id, DOSE)]
    draft = draft_for(dose_frame(**kw), evidence)
    assert draft.claims, draft
    assert_verbatim(list(draft.claims), evidence)
    texts = [c.text for c in draft.claims]
    assert texts[0].startswith(must[0]), texts
    for label in must:
        assert any(t.startswith(label) for t in texts), (label, texts)
    for label in never:
        assert not any(t.startswith(label) for t in texts), (label, texts)


def _case(drug_ids: list[str], condition: str, patient: PatientContext,
          findings: dict[str, list[tuple[SafetyAspect, SectionKey, list[str]]]]):  # type: ignore[no-untyped-def]
    evidence = [make_evidence(d, SectionKey.CHI_DINH) for d in drug_ids]
    assessments = []
    for drug_id, found in findings.items():
        items = []
        for aspect, section, terms in found:
            evidence.append(make_evidence(drug_id, section))
            items.append(SafetyFinding(aspect=aspect, evidence_ids=[evidence[-1].evidence_id], matched_terms=terms))
        assessments.append(CandidateAssessment(drug_id=drug_id, drug_name=drug_id.upper(),
                                               status=CandidateStatus.SUPPORTED_WITH_CAUTION, findings=items))
    frame = QueryFrame(turn_type=TurnType.CONDITION_TO_DRUG, condition=condition, patient_context=patient)
    draft = draft_for(frame, evidence, Route.C_CONDITION, candidate_drug_ids=drug_ids, assessments=assessments)
    assert_verbatim(list(draft.claims), evidence)
    return draft, evidence


def _first_of(draft, evidence, drug_id: str):  # type: ignore[no-untyped-def]
    claims = [c for c in draft.claims if c.drug_id == drug_id]
    return claims, [evidence[c.citations[0] - 1].section_key for c in claims]


def test_a_renal_contraindication_is_said_before_the_drug_is_shown() -> None:
    renal = [(SafetyAspect.RENAL, SectionKey.CHONG_CHI_DINH, ["suy thận", "clcr"])]
    draft, evidence = _case(["colchicin", "diclofenac"], "gút cấp",
                            PatientContext(age_years=72.0, crcl_ml_min=25.0, ckd=True),
                            {"colchicin": renal, "diclofenac": renal})
    for drug_id in ("colchicin", "diclofenac"):
        claims, sections = _first_of(draft, evidence, drug_id)
        assert sections[0] is SectionKey.CHONG_CHI_DINH, claims
        assert "Clcr dưới 30" in claims[0].text
        assert SectionKey.CHI_DINH in sections


def test_a_patient_whose_clcr_is_above_the_band_is_not_excluded() -> None:
    renal = [(SafetyAspect.RENAL, SectionKey.CHONG_CHI_DINH, ["suy thận", "clcr"])]
    draft, evidence = _case(["colchicin"], "gút cấp", PatientContext(crcl_ml_min=45.0, ckd=True),
                            {"colchicin": renal})
    _, sections = _first_of(draft, evidence, "colchicin")
    assert sections[0] is SectionKey.CHI_DINH


def test_a_penicillin_allergy_excludes_amoxicilin_first_and_leaves_the_macrolide_plain() -> None:
    allergy = [(SafetyAspect.ALLERGY, SectionKey.CHONG_CHI_DINH, ["penicilin"])]
    draft, evidence = _case(["azithromycin", "amoxicilin"], "viêm phổi mắc phải ở cộng đồng",
                            PatientContext(allergies=["penicilin"]), {"amoxicilin": allergy})
    claims, sections = _first_of(draft, evidence, "amoxicilin")
    assert sections[0] is SectionKey.CHONG_CHI_DINH and "penicilin" in claims[0].text
    azithro, azithro_sections = _first_of(draft, evidence, "azithromycin")
    assert azithro_sections == [SectionKey.CHI_DINH], azithro


@pytest.mark.parametrize(("sentence", "term", "named"), [
    ("Ba tháng cuối thai kỳ.", "thận", False),  # folded, "than" is inside "thang"
    ("Dùng kéo dài có thể gây bệnh thần kinh.", "thận", False),  # folded, "thần" is "thận"
    ("Thận trọng ở người suy thận.", "suy thận", True),
    ("Quá mẫn với bất kỳ penicilin nào.", "penicilin", True),
    ("Dùng cùng warfarin làm tăng nguy cơ chảy máu.", "WARFARIN", True),
])
def test_a_finding_names_the_fact_as_whole_words(sentence: str, term: str, named: bool) -> None:
    assert names(sentence, term) is named


@pytest.mark.parametrize(("condition", "text", "enough"), [
    ("Nhiễm Helicobacter pylori", "Diệt Helicobacter pylori, phối hợp với kháng sinh.", True),
    ("đau đầu", "Đau thắt ngực ổn định mạn tính.", False),  # folded, "đầu" and "đau" are one syllable
    ("dau dau", "Đau đầu, đau răng.", True),
    ("hạ sốt", "Sốt mò và các bệnh do Rickettsia.", False),
])
def test_condition_coverage_keeps_the_typed_marks(condition: str, text: str, enough: bool) -> None:
    assert (condition_coverage(condition, text) >= 0.67) is enough


@pytest.mark.parametrize("drug_id", ["warfarin", "paracetamol", "ibuprofen", "amoxicilin"])
def test_an_overview_gives_a_few_claims_from_each_fixed_section(drug_id: str) -> None:
    keys = [key for key, _ in OVERVIEW_LIMITS]
    evidence = [make_evidence(drug_id, key) for key in keys]
    frame = QueryFrame(turn_type=TurnType.DRUG_OVERVIEW, standalone_query=f"Tóm tắt về {drug_id}")
    draft = draft_for(frame, evidence, Route.B_OVERVIEW)
    assert_verbatim(list(draft.claims), evidence)
    cited = [evidence[c.citations[0] - 1].section_key for c in draft.claims]
    for key, limit in OVERVIEW_LIMITS:
        assert 1 <= cited.count(key) <= limit, (key, cited)
    doses = [c.text for c in draft.claims if evidence[c.citations[0] - 1].section_key is DOSE]
    assert all(t.startswith("Người lớn") for t in doses), doses  # the usual adult dose, no other population


def test_renal_impairment_without_a_value_gives_the_renal_bands_only() -> None:
    evidence = [make_evidence("paracetamol", DOSE)]
    texts = [c.text for c in draft_for(dose_frame(population="Suy thận"), evidence).claims]
    assert texts and all(t.startswith("Suy thận (Clcr") for t in texts), texts
