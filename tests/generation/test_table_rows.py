"""Issue 19: dose answers from released table rows — the row whose printed band holds the patient's value.

Rows come from the real sample PDF through the real ingest and retrieval's
evidence mapping, beside the section's prose as route A reads it.
"""

from __future__ import annotations

from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import PatientContext, QueryFrame, TurnType
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
