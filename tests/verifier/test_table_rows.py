"""Issue 19: a released table row is evidence like any other, and its quantities bind within the row.

The rows come from the real sample PDF through the real ingest (both table
extractors agreed), then through retrieval's evidence mapping, so the text
checked is exactly what generation would be handed.
"""

from __future__ import annotations

from duocthu_contracts.answer import AnswerPlan, Claim, Draft
from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_ingest import IngestResult
from duocthu_retrieval.domain.evidence_policy import to_evidence
from duocthu_verifier import subject_of
from duocthu_verifier.domain.checks import first_failure, run_deterministic_checks
from tests.fixtures.verifier import sample_terms


def _rows(sample_ingest: IngestResult, drug_id: str) -> list[Evidence]:
    return [to_evidence(c) for c in sample_ingest.chunks if c.drug_id == drug_id and c.chunk_kind is ChunkKind.TABLE_ROW]


def _failure(claims: list[Claim], evidence: list[Evidence]) -> Reason | None:
    payload = AnswerDraftedPayload(
        query="Liều metformin khi eGFR 50?", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE),
        route=Route.B_OVERVIEW, evidence=evidence, plan=AnswerPlan(), draft=Draft(claims=claims, generated=True))
    failed = first_failure(run_deterministic_checks(subject_of(payload, sample_terms())))
    return failed.reason if failed is not None else None


def test_a_claim_quoted_from_a_row_passes_and_a_number_from_another_row_is_rejected(
        sample_ingest: IngestResult) -> None:
    rows = _rows(sample_ingest, "metformin")
    band = next(i for i, e in enumerate(rows) if "45 – 59" in e.text)
    other = next(i for i, e in enumerate(rows) if "30 – 44" in e.text)
    assert not rows[band].requires_visual_check and rows[band].source_refs[0].bbox is not None
    evidence = [rows[band], rows[other]]
    quoted = Claim(text="eGFR (ml/phút/1,73 m²): 45 – 59; Metformin hydroclorid › Liều khởi đầu: "
                        "500 mg hoặc 850 mg × 1 lần/ngày; Metformin hydroclorid › Liều tối đa mỗi ngày: 2.000 mg",
                   citations=[1])
    assert quoted.text in rows[band].text
    assert _failure([quoted], evidence) is None
    bound = Claim(text="Khi eGFR (ml/phút/1,73 m²) 45 – 59, liều tối đa mỗi ngày là 2.000 mg.", citations=[1])
    assert _failure([bound], evidence) is None
    crossed = Claim(text="Khi eGFR (ml/phút/1,73 m²) 45 – 59, liều tối đa mỗi ngày là 1.000 mg.", citations=[1, 2])
    assert _failure([crossed], evidence) in (Reason.UNBOUND_QUANTITY, Reason.UNGROUNDED_NUMBER)
    wrong_row = crossed.model_copy(update={"citations": [1]})
    assert _failure([wrong_row], evidence) is not None
