"""A section that holds a table: its text is answered when it holds the patient's band, with the table as a crop.

Retrieval hands route A the prose parts (each carrying the table as its
attachment) without the table's descriptor; generation answers from the
prose only when the patient's own band is printed there, else the turn is
VERIFY_PDF (a proposal the verifier checks and seals); the gateway attaches
each crop once per answer; the verifier accepts the text claims.
"""

from __future__ import annotations

from datetime import timedelta

from duocthu_contracts.corpus import Attachment, BlockKind, ChunkKind
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import PatientContext, QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload, EvidenceRetrievedPayload
from duocthu_contracts.sections import SectionKey
from duocthu_corpus.monograph import load_all
from duocthu_gateway.domain.responses import citation
from duocthu_generation.application.drafting import Drafted, Drafting, Ended, ExtractiveWriter
from duocthu_providers import TurnBudget
from duocthu_retrieval.domain.evidence_policy import decide
from duocthu_runtime.bus.envelope import utcnow
from duocthu_verifier import check_page_proposal, subject_of, verify
from tests.fixtures.index import chunk_records
from tests.fixtures.verifier import make_evidence, sample_terms

DOSE = SectionKey.LIEU_LUONG_VA_CACH_DUNG
TABLE = Attachment(block_id="p60_table0", kind=BlockKind.TABLE, section_key=DOSE, physical_page=60,
                   printed_page=156, bbox=(40.0, 420.0, 290.0, 560.0))


def _budget() -> TurnBudget:
    return TurnBudget(deadline=utcnow() + timedelta(seconds=10), calls_left=0)


def beside_table(drug_id: str) -> list[Evidence]:
    """The section's text cut in two parts, both carrying the table (as the ingest worker emits them)."""
    whole = make_evidence(drug_id, DOSE)
    lines = whole.text.split("\n")
    half = len(lines) // 2
    return [whole.model_copy(update={"evidence_id": f"{drug_id}__{DOSE}__{i}", "text": "\n".join(part),
                                     "attachments": [TABLE], "part_index": i, "part_count": 3})
            for i, part in enumerate((lines[:half], lines[half:]))]


async def draft(drug_id: str, **frame: object) -> Drafted | Ended:
    f = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, section_key=DOSE, standalone_query="liều", **frame)  # type: ignore[arg-type]
    payload = EvidenceRetrievedPayload(query="liều", frame=f, route=Route.A_SECTION, evidence=beside_table(drug_id))
    return await Drafting(ExtractiveWriter()).draft(payload, _budget())


async def test_the_adult_text_beside_a_renal_table_is_answered_and_verified() -> None:
    result = await draft("metformin", population="Người lớn", route="đường uống")
    assert isinstance(result, Drafted), result
    texts = [c.text for c in result.draft.claims]
    assert texts and not any(t.startswith(("Trẻ em", "Suy thận", "Người cao tuổi")) for t in texts), texts
    evidence = beside_table("metformin")
    payload = AnswerDraftedPayload(query="liều", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE),
                                   route=Route.A_SECTION, evidence=evidence, plan=result.plan, draft=result.draft)
    verdict = await verify(subject_of(payload, sample_terms()), "liều", None, _budget())
    assert verdict.accepted, verdict


async def test_a_renal_patient_gets_the_renal_text_line_first() -> None:
    result = await draft("metformin", patient_context=PatientContext(egfr=40.0, ckd=True))
    assert isinstance(result, Drafted), result
    assert result.draft.claims[0].text.startswith("Suy thận")


async def test_a_patient_state_the_text_has_no_band_for_is_read_on_the_page() -> None:
    # the text prints no line for a breastfeeding mother: her band may be in the table, so it is not answered
    result = await draft("metformin", population="Người lớn", patient_context=PatientContext(breastfeeding=True))
    assert isinstance(result, Drafted) and result.proposed is Decision.VERIFY_PDF, result
    assert not result.draft.claims
    # the verifier shows that evidence on the page: every block carries its crop
    page = check_page_proposal(beside_table("metformin"), result.draft)
    assert page.accepted and page.reason is Reason.VISUAL_CHECK_REQUIRED, page


async def test_no_population_still_asks_with_the_printed_labels() -> None:
    result = await draft("metformin")
    assert isinstance(result, Ended) and result.decision is Decision.CLARIFY and result.quick_replies


def test_each_crop_is_attached_once_per_answer() -> None:
    evidence = beside_table("metformin")
    shown: set[str] = set()
    citations = [citation(i, ev, shown) for i, ev in enumerate(evidence, start=1)]
    assert [len(c.attachments) for c in citations] == [1, 0]


def test_route_a_answers_the_prose_when_the_table_travels_with_it() -> None:
    records = [c for c in chunk_records([m for m in load_all() if m.drug_id == "gentamicin"])
               if c.section_key is DOSE]
    descriptor = next(c for c in records if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR)
    prose = [c.model_copy(update={"attachments": descriptor.attachments, "has_quarantined_content": True})
             for c in records if c.chunk_kind is ChunkKind.PROSE]
    chunks = [(c, None) for c in [*prose, descriptor]]
    answered = decide(Route.A_SECTION, chunks, visual_blocks_whole_answer=True)
    assert (answered.decision, answered.reason) == (Decision.ANSWERABLE, Reason.VERIFIED)
    assert [e.evidence_id for e in answered.evidence] == [c.chunk_id for c in prose]
    assert all(not e.requires_visual_check and e.attachments for e in answered.evidence)
    # without the crop on the text (or on a two-sided route) the page must be read
    bare = [(c, None) for c in records]
    assert decide(Route.A_SECTION, bare, visual_blocks_whole_answer=True).decision is Decision.VERIFY_PDF
    assert decide(Route.D_INTERACTION, chunks, visual_blocks_whole_answer=True).decision is Decision.VERIFY_PDF
