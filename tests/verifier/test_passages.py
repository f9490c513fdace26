"""The verifier's reading of evidence: label scopes across seams and parts, and table rows as passages."""

from __future__ import annotations

from duocthu_contracts.answer import Claim
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.sections import SectionKey
from duocthu_verifier.domain.binding import bind
from duocthu_verifier.domain.passages import passages


def block(text: str, part: int = 0, labels: list[str] | None = None, drug: str = "thuoc_mau") -> Evidence:
    return Evidence(evidence_id=f"{drug}__lieu_luong_va_cach_dung__{part}", drug_id=drug, drug_name="THUỐC MẪU",
                    section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG, section_title="Liều lượng và cách dùng",
                    text=text, part_index=part, part_count=3, context_labels=labels or [])


PART0 = block("Cách dùng: Uống sau ăn.\nĐường uống:\nNgười lớn: 500 mg/lần, ngày 2 lần.")
PART1 = block("Trẻ em từ 6 đến 12 tuổi: 250 mg/lần, ngày 2 lần.\nTiêm tĩnh mạch:\nNgười lớn: 1 g/lần, ngày 1 lần.",
              part=1)
SEAM = block("Đường uống: Trẻ em dưới 6 tuổi: 10 mg/kg/lần, ngày 2 lần.", part=2,
             labels=["Đường uống:", "Trẻ em dưới 6 tuổi:"])


def reason(claim: Claim, evidence: list[Evidence]) -> Reason | None:
    b = bind(claim, evidence)
    if not b.quantities_bound:
        return Reason.UNBOUND_QUANTITY
    if not b.population_bound:
        return Reason.POPULATION_MISMATCH
    return None if b.label_bound else Reason.UNSUPPORTED_LABEL


def test_headings_scope_the_paragraphs_under_them() -> None:
    scopes = {p.text: p.scope for p in passages([PART0, PART1], [1, 2])}
    assert scopes["Người lớn: 500 mg/lần, ngày 2 lần."] == ("Đường uống", "Người lớn")
    assert scopes["Người lớn: 1 g/lần, ngày 1 lần."] == ("Tiêm tĩnh mạch", "Người lớn")


def test_a_continuation_part_inherits_the_route_of_the_part_before_it() -> None:
    child = Claim(text=PART1.text.split("\n")[0], citations=[2], label="Đường uống")
    assert reason(child, [PART0, PART1]) is None
    alone = child.model_copy(update={"citations": [1]})
    assert reason(alone, [PART1]) is Reason.UNSUPPORTED_LABEL, "without the part before, the route is unknown"
    other_drug = block(PART0.text, drug="thuoc_khac")
    assert reason(child, [other_drug, PART1]) is Reason.UNSUPPORTED_LABEL


def test_carried_labels_at_a_seam_scope_the_chunk_and_are_not_source() -> None:
    found = passages([SEAM], [1])
    assert [p.text for p in found] == ["10 mg/kg/lần, ngày 2 lần."]
    assert found[0].scope == ("Đường uống", "Trẻ em dưới 6 tuổi")
    assert reason(Claim(text="10 mg/kg/lần, ngày 2 lần.", citations=[1], label="Đường uống"), [SEAM]) is None
    assert reason(Claim(text="Người lớn: 10 mg/kg/lần, ngày 2 lần.", citations=[1]), [SEAM]) is \
        Reason.POPULATION_MISMATCH


ROWS = block("Bảng 1. Liều theo chức năng thận — eGFR (ml/phút/1,73 m²): 45 – 59; Liều khởi đầu: 500 mg/ngày\n"
             "Bảng 1. Liều theo chức năng thận — eGFR (ml/phút/1,73 m²): 30 – 44; Liều khởi đầu: 250 mg/ngày")


def test_a_table_row_is_one_passage_and_rows_are_never_combined() -> None:
    assert len(passages([ROWS], [1])) == 2
    same_row = Claim(text="Liều khởi đầu 500 mg/ngày khi eGFR (ml/phút/1,73 m²) 45 – 59.", citations=[1])
    crossed = Claim(text="Liều khởi đầu 250 mg/ngày khi eGFR (ml/phút/1,73 m²) 45 – 59.", citations=[1])
    assert reason(same_row, [ROWS]) is None
    assert reason(crossed, [ROWS]) is Reason.UNBOUND_QUANTITY
