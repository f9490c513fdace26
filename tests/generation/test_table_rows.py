"""Issue 19: dose answers from released table rows — the row whose printed band holds the patient's value.

Rows come from the real sample PDF through the real ingest and retrieval's
evidence mapping, beside the section's prose as route A reads it.
"""

from __future__ import annotations

from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import PatientContext, PrintedBand, QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_generation.domain.extractive import write
from duocthu_generation.domain.plan import make_plan
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_ingest import IngestResult
from duocthu_retrieval.domain.evidence_policy import to_evidence

DOSE = SectionKey.LIEU_LUONG_VA_CACH_DUNG


def _section(sample_ingest: IngestResult, drug_id: str) -> list[Evidence]:
    chunks = sorted((c for c in sample_ingest.chunks if c.drug_id == drug_id and c.section_key == DOSE),
                    key=lambda c: c.part_index)
    assert any(c.chunk_kind is ChunkKind.TABLE_ROW for c in chunks)
    return [to_evidence(c) for c in chunks]


def _draft(evidence: list[Evidence], **context: object):  # type: ignore[no-untyped-def]
    frame = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=DOSE, standalone_query="liều",
                       patient_context=PatientContext(**context))  # type: ignore[arg-type]
    plan = make_plan(frame, evidence, Route.A_SECTION, list_mode=False)
    return write(WriterInput(frame=frame, evidence=evidence, route=Route.A_SECTION, plan=plan))


def test_an_egfr_value_answers_with_the_row_of_its_band_as_printed(sample_ingest: IngestResult) -> None:
    evidence = _section(sample_ingest, "metformin")
    draft = _draft(evidence, egfr=50)
    assert [c.text.split(" — ", 1)[1].split(";")[0] for c in draft.claims] == ["eGFR (ml/phút/1,73 m²): 45 – 59"]
    claim = draft.claims[0]
    assert claim.text in evidence[claim.citations[0] - 1].text and "2.000 mg" in claim.text
    low = _draft(evidence, egfr=20)
    assert [c.text.split(" — ", 1)[1].split(";")[0] for c in low.claims] == ["eGFR (ml/phút/1,73 m²): < 30"]


def test_a_clearance_answers_from_the_alopurinol_row(sample_ingest: IngestResult) -> None:
    draft = _draft(_section(sample_ingest, "alopurinol"), crcl_ml_min=15)
    assert len(draft.claims) == 1 and "10 – 20; Liều alopurinol: 100 – 200 mg/ngày" in draft.claims[0].text


def test_renal_impairment_without_a_value_asks_with_the_printed_bands(sample_ingest: IngestResult) -> None:
    draft = _draft(_section(sample_ingest, "metformin"), ckd=True)
    assert not draft.claims and draft.clarifying_question
    assert draft.quick_replies == ["eGFR (ml/phút/1,73 m²) 45 – 59", "eGFR (ml/phút/1,73 m²) 30 – 44",
                                   "eGFR (ml/phút/1,73 m²) < 30"]  # five bands: those below normal function


def test_a_row_claim_carries_no_route_label_from_the_text_above_the_table(sample_ingest: IngestResult) -> None:
    """Gentamicin's rows follow "Tiêm bắp hoặc tiêm tĩnh mạch:"; that route is not printed over the row."""
    draft = _draft(_section(sample_ingest, "gentamicin"), crcl_ml_min=30)
    assert draft.claims and all(c.text.startswith("Bảng 1.") for c in draft.claims)
    assert all(c.label is None for c in draft.claims)


def test_an_adult_without_a_renal_value_is_not_answered_with_every_egfr_band(sample_ingest: IngestResult) -> None:
    frame = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=DOSE, standalone_query="liều người lớn",
                       population="người lớn", patient_context=PatientContext(age_years=45))
    evidence = _section(sample_ingest, "metformin")
    plan = make_plan(frame, evidence, Route.A_SECTION, list_mode=False)
    draft = write(WriterInput(frame=frame, evidence=evidence, route=Route.A_SECTION, plan=plan))
    assert not any(c.text.startswith("Bảng 1.") for c in draft.claims)


# --------------------------------------------------------------------------- rows keyed on weight and age

AMOX = "amoxicilin_va_acid_clavulanic"


def _key_cells(draft) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.text.split(" — ", 1)[1].split(";")[0] for c in draft.claims]


def _dose_frame(population: str | None = None, **context: object) -> QueryFrame:
    ctx = PatientContext(**context)  # type: ignore[arg-type]
    return QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=DOSE, standalone_query="liều",
                      population=population, age_years=ctx.age_years, weight_kg=ctx.weight_kg,
                      patient_context=ctx)


def _write(frame: QueryFrame, evidence: list[Evidence]):  # type: ignore[no-untyped-def]
    plan = make_plan(frame, evidence, Route.A_SECTION, list_mode=False)
    return write(WriterInput(frame=frame, evidence=evidence, route=Route.A_SECTION, plan=plan))


def test_a_weight_answers_with_the_row_of_its_weight_band_as_printed(sample_ingest: IngestResult) -> None:
    evidence = _section(sample_ingest, AMOX)
    for weight, printed in ((20, "15 – 24,9"), (6, "6 – 9,9"), (14.9, "10 – 14,9"), (25, "25 – 39,9")):
        draft = _write(_dose_frame("Trẻ em", weight_kg=weight), evidence)
        assert _key_cells(draft) == [f"Cân nặng (kg): {printed}"], weight
        claim = draft.claims[0]
        assert claim.text in evidence[claim.citations[0] - 1].text and claim.label is None


def test_a_weight_row_never_answers_an_adult_or_a_weight_outside_every_band(sample_ingest: IngestResult) -> None:
    evidence = _section(sample_ingest, AMOX)
    adult = _write(_dose_frame("Người lớn", weight_kg=30), evidence)  # the caption prints "trẻ em"
    heavy = _write(_dose_frame(None, weight_kg=50), evidence)
    for draft in (adult, heavy):
        assert not any(c.text.startswith("Bảng 1.") for c in draft.claims)


def test_a_special_state_keeps_its_own_lines_over_a_weight_row(sample_ingest: IngestResult) -> None:
    draft = _write(_dose_frame("Trẻ em", weight_kg=20, crcl_ml_min=20), _section(sample_ingest, AMOX))
    assert draft.claims and all(c.text.startswith("Suy thận (Clcr 10 – 30") for c in draft.claims)


def test_a_child_without_a_weight_is_asked_with_the_printed_weight_bands(sample_ingest: IngestResult) -> None:
    draft = _write(_dose_frame("Trẻ em", age_years=2), _section(sample_ingest, AMOX))
    assert not draft.claims
    assert draft.clarifying_question == "Cân nặng (kg) của người bệnh ở mức nào?"
    assert draft.quick_replies == ["Cân nặng (kg) 6 – 9,9", "Cân nặng (kg) 10 – 14,9", "Cân nặng (kg) 15 – 24,9",
                                   "Cân nặng (kg) 25 – 39,9"]


def test_a_picked_band_selects_its_row_and_is_no_value(sample_ingest: IngestResult) -> None:
    evidence = _section(sample_ingest, "metformin")
    band = PrintedBand(header="eGFR (ml/phút/1,73 m²)", band="30 – 44")
    draft = _write(_dose_frame("Suy thận", ckd=True, band=band), evidence)
    assert _key_cells(draft) == ["eGFR (ml/phút/1,73 m²): 30 – 44"]
    # typed by hand with another dash and spacing, still that row
    typed = PrintedBand(header="egfr (ml/phút/1,73 m²)", band="30-44")
    assert _key_cells(_write(_dose_frame("Suy thận", ckd=True, band=typed), evidence)) == [
        "eGFR (ml/phút/1,73 m²): 30 – 44"]
    # a bound band ("< 30") is the row that prints it, not a value of 30 (which would be the 30 – 44 row)
    low = _write(_dose_frame("Suy thận", ckd=True, band=band.model_copy(update={"band": "< 30"})), evidence)
    assert _key_cells(low) == ["eGFR (ml/phút/1,73 m²): < 30"]


def _age_table() -> list[Evidence]:
    """An age-keyed table as released rows (written here: the sample prints none keyed on age)."""
    caption = "Bảng 2. Liều minh họa theo tuổi ở trẻ em (ví dụ kiểm thử, không dùng cho lâm sàng)"
    rows = [("1 – 5", "2 mg/kg"), ("6 – 11", "3 mg/kg"), ("12 – 23", "4 mg/kg")]
    return [Evidence(evidence_id=f"row{i}", drug_id="x", drug_name="X", section_key=DOSE,
                     section_title="Liều lượng và cách dùng", chunk_kind=ChunkKind.TABLE_ROW,
                     text=f"{caption} — Tuổi (tháng): {key}; Liều mỗi lần: {dose}")
            for i, (key, dose) in enumerate(rows)]


def test_an_age_in_years_selects_the_row_of_a_table_printed_in_months() -> None:
    evidence = _age_table()
    draft = _write(_dose_frame("Trẻ em", age_years=1.5), evidence)  # 18 months
    assert _key_cells(draft) == ["Tuổi (tháng): 12 – 23"] and "4 mg/kg" in draft.claims[0].text
    asked = _write(_dose_frame("Trẻ em", weight_kg=9), evidence)
    assert asked.clarifying_question == "Tuổi (tháng) của người bệnh ở mức nào?"
    assert asked.quick_replies == ["Tuổi (tháng) 1 – 5", "Tuổi (tháng) 6 – 11", "Tuổi (tháng) 12 – 23"]


def test_the_bands_offered_are_every_row_as_printed_or_none(sample_ingest: IngestResult) -> None:
    vanco = _section(sample_ingest, "vancomycin")
    asked = _write(_dose_frame("Suy thận", ckd=True), vanco)
    header = "Độ thanh thải creatinin (ml/phút)"
    assert asked.clarifying_question == f"{header} của người bệnh ở mức nào?"
    assert asked.quick_replies == [f"{header} > 50", f"{header} 20 – 50", f"{header} < 20 (không thẩm tách)",
                                   f"{header} Thẩm tách máu ngắt quãng"]
    picked = _write(_dose_frame("Suy thận", ckd=True, band=PrintedBand(header=header, band="Thẩm tách máu ngắt quãng")),
                    vanco)
    assert _key_cells(picked) == [f"{header}: Thẩm tách máu ngắt quãng"] and "500 mg – 1 g" in picked.claims[0].text
    # gentamicin prints six bands below normal function: not four of them as if they were all — no band question
    genta = _write(_dose_frame("Suy thận", ckd=True), _section(sample_ingest, "gentamicin"))
    assert not genta.claims and genta.clarifying_question is None
