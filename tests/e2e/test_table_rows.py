"""Table-keyed dose questions through the whole real stack (issue 19).

Six real service processes on a private NATS, the index seeded with the sample
PDF's own ingest (released table rows, page crops; ``table_corpus``), questions
asked over HTTP as a user types them: each answers from the row whose printed
band holds the value, numbers verbatim, citing that row; a renal question
without a value is asked back with the printed bands as quick replies, and
the clicked band (the next turn) answers from its row.
"""

from __future__ import annotations

import secrets

import httpx
import pytest

from duocthu_contracts.http import RagQueryResponse
from tests.fixtures.corpus import SamplePdf
from tests.fixtures.index import IndexCorpus, seed_stack
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e
OWNER = {"X-Client-Token": secrets.token_urlsafe(32)}


def _ask(url: str, query: str, conversation: str) -> RagQueryResponse:
    response = httpx.post(f"{url}/v1/rag/query", json={"query": query, "conversation_id": conversation},
                          timeout=90, headers=OWNER)
    assert response.status_code == 200, response.text
    return RagQueryResponse.model_validate(response.json())


def _row_answer(body: RagQueryResponse, drug_id: str, key: str, *numbers: str) -> None:
    """One claim: the row whose key cell prints ``key``, quoted verbatim from the row it cites."""
    assert (body.decision, body.reason) == ("answerable", "verified"), body.model_dump_json(indent=1)[:3000]
    assert len(body.claims) == 1, [c.text for c in body.claims]
    claim = body.claims[0]
    assert claim.text.startswith("Bảng 1.") and f" — {key};" in claim.text, claim.text
    cited = [c for c in body.citations if c.index in claim.citations]
    assert cited and all(c.drug_id == drug_id and c.section_key == "lieu_luong_va_cach_dung" for c in cited)
    assert any(claim.text in c.text for c in cited)  # the row, verbatim
    assert all(c.text.startswith("Bảng 1.") for c in cited)  # the evidence cited is the row chunk itself
    for number in numbers:
        assert number in claim.text, (number, claim.text)


def test_table_keyed_questions_answer_from_their_row(stack_factory: StackFactory, table_corpus: IndexCorpus,
                                                     sample_pdf: SamplePdf) -> None:
    stack = stack_factory(env={"SOURCE_PDF": str(sample_pdf.book.path)}, seed_index=False, start=False)
    stack.start(ready_timeout_s=120, bootstrap=seed_stack(table_corpus, release_id="rel-tables"))
    url = stack.url

    _row_answer(_ask(url, "Liều metformin cho bệnh nhân eGFR 40?", "tab-met"), "metformin",
                "eGFR (ml/phút/1,73 m²): 30 – 44", "500 mg hoặc 850 mg × 1 lần/ngày", "1.000 mg")
    _row_answer(_ask(url, "Liều gentamicin cho người bệnh có Clcr 30 ml/phút?", "tab-gen"), "gentamicin",
                "Độ thanh thải creatinin (ml/phút): 24 – 34", "80 mg", "18 giờ")
    _row_answer(_ask(url, "Liều vancomycin khi Clcr 40 ml/phút?", "tab-van"), "vancomycin",
                "Độ thanh thải creatinin (ml/phút): 20 – 50", "15 – 20 mg/kg", "24 giờ")
    _row_answer(_ask(url, "Liều alopurinol cho người có độ thanh thải creatinin 15 ml/phút?", "tab-alo"),
                "alopurinol", "Độ thanh thải creatinin (ml/phút): 10 – 20", "100 – 200 mg/ngày")
    _row_answer(_ask(url, "Liều amoxicilin và acid clavulanic cho trẻ 20 kg?", "tab-amx"),
                "amoxicilin_va_acid_clavulanic", "Cân nặng (kg): 15 – 24,9", "250", "3,1", "450", "5,6")

    # no value: asked back with the printed bands; the clicked band (not a value) answers from its row
    asked = _ask(url, "Liều metformin cho người suy thận?", "tab-ask")
    assert (asked.decision, asked.reason) == ("clarify", "patient_info_required"), asked.model_dump_json(indent=1)
    assert asked.answer == "eGFR (ml/phút/1,73 m²) của người bệnh ở mức nào?"
    assert asked.quick_replies == ["eGFR (ml/phút/1,73 m²) 45 – 59", "eGFR (ml/phút/1,73 m²) 30 – 44",
                                   "eGFR (ml/phút/1,73 m²) < 30"]
    _row_answer(_ask(url, asked.quick_replies[1], "tab-ask"), "metformin", "eGFR (ml/phút/1,73 m²): 30 – 44",
                "1.000 mg")
    # the band's key cell typed by hand is the same band; "< 30" is its own row, not the 30 – 44 one
    _ask(url, "Liều metformin cho người suy thận?", "tab-typed")
    _row_answer(_ask(url, "< 30", "tab-typed"), "metformin", "eGFR (ml/phút/1,73 m²): < 30", "Chống chỉ định")

    weight = _ask(url, "Liều amoxicilin và acid clavulanic cho trẻ 2 tuổi?", "tab-kid")
    assert (weight.decision, weight.reason) == ("clarify", "patient_info_required"), weight.model_dump_json(indent=1)
    assert weight.quick_replies[1] == "Cân nặng (kg) 10 – 14,9"
    _row_answer(_ask(url, weight.quick_replies[1], "tab-kid"), "amoxicilin_va_acid_clavulanic",
                "Cân nặng (kg): 10 – 14,9", "150", "1,9")
