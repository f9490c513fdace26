"""A quick reply that picks a table band is that band, never a value (issue 19).

Generation asks for the value a released table is keyed on with the table's
bands as quick replies ("eGFR (ml/phút/1,73 m²) 30 – 44"); the reply comes back
as the next turn's question.  Understanding must take it as the band — the row
that prints it — and must not read 30 or 44 as the patient's eGFR.  The last
test runs both turns over the real sample ingest: the clarify, then the reply.
"""

from __future__ import annotations

from duocthu_contracts.decisions import Decision
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import DrugRef, PrintedBand, QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_generation.domain.extractive import write
from duocthu_generation.domain.plan import make_plan
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_ingest import IngestResult
from duocthu_retrieval.domain.evidence_policy import answered_by_rows, decide
from duocthu_understanding.domain.band_reply import split
from duocthu_understanding.domain.frame_builder import Conversation, Outcome, understand
from duocthu_understanding.domain.matcher import DrugMatcher
from tests.fixtures.understanding import sample_catalog

CATALOG = sample_catalog()
MATCHER = DrugMatcher(CATALOG)
DOSE = SectionKey.LIEU_LUONG_VA_CACH_DUNG
EGFR_REPLIES = ["eGFR (ml/phút/1,73 m²) 45 – 59", "eGFR (ml/phút/1,73 m²) 30 – 44", "eGFR (ml/phút/1,73 m²) < 30"]


def _asked(replies: list[str], drug_id: str = "metformin") -> QueryFrame:
    """The frame generation leaves after asking for a band (drafting marks the open question on it)."""
    return QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[DrugRef(drug_id=drug_id, drug_name=drug_id.upper())],
                      section_key=DOSE, population="Suy thận", needs_clarify=True,
                      clarify_reason="patient_info_required", quick_replies=replies,
                      standalone_query="Liều metformin cho người suy thận?")


def _reply(text: str, last: QueryFrame) -> Outcome:
    return understand(text, CATALOG, MATCHER, Conversation(last_frame=last, clarify_streak=1))


def test_a_band_reply_is_split_into_its_printed_header_and_key_cell() -> None:
    assert split("eGFR (ml/phút/1,73 m²) 30 – 44") == PrintedBand(header="eGFR (ml/phút/1,73 m²)", band="30 – 44")
    assert split("Độ thanh thải creatinin (ml/phút) trên 20") == PrintedBand(
        header="Độ thanh thải creatinin (ml/phút)", band="trên 20")
    assert split("Cân nặng (kg) 10 – 14,9") == PrintedBand(header="Cân nặng (kg)", band="10 – 14,9")
    assert split("Độ thanh thải creatinin (ml/phút) < 20 (không thẩm tách)") == PrintedBand(
        header="Độ thanh thải creatinin (ml/phút)", band="< 20 (không thẩm tách)")
    assert split("Người lớn") is None and split("Trẻ em từ 1 đến 5 tuổi") is None


def test_the_clicked_band_is_that_band_and_no_egfr_value() -> None:
    for typed, band in (("eGFR (ml/phút/1,73 m²) 30 – 44", "30 – 44"), ("30 – 44", "30 – 44"), ("30-44", "30 – 44"),
                        ("eGFR (ml/phút/1,73 m²) < 30", "< 30"), ("<30", "< 30")):
        outcome = _reply(typed, _asked(EGFR_REPLIES))
        frame = outcome.frame
        assert not outcome.ends_turn, typed
        ctx = frame.patient_context
        assert ctx.band == PrintedBand(header="eGFR (ml/phút/1,73 m²)", band=band), typed
        assert (ctx.egfr, ctx.crcl_ml_min, ctx.creatinine, frame.age_years, frame.weight_kg) == (
            None, None, None, None, None), typed
        assert [d.drug_id for d in frame.drugs] == ["metformin"] and frame.section_key is DOSE
        assert not frame.needs_clarify and frame.depends_on_previous_turn


def test_only_an_offered_band_is_a_band() -> None:
    # a value typed instead of a band is a value
    valued = _reply("eGFR 40", _asked(EGFR_REPLIES)).frame.patient_context
    assert valued.egfr == 40 and valued.band is None
    # a band we did not offer, or a reply when nothing was asked, is read as an ordinary question
    assert _reply("60 – 89", _asked(EGFR_REPLIES)).frame.patient_context.band is None
    asked_nothing = _asked(EGFR_REPLIES).model_copy(update={"needs_clarify": False})
    assert _reply("30 – 44", asked_nothing).frame.patient_context.band is None
    # population replies stay population replies
    people = _reply("Người lớn", _asked(["Người lớn", "Trẻ em"])).frame
    assert people.population == "Người lớn" and people.patient_context.band is None


def _turn(frame: QueryFrame, sample_ingest: IngestResult):  # type: ignore[no-untyped-def]
    """Route A over the drug's dose section as the retriever decides it, then the extractive writer."""
    chunks = sorted((c for c in sample_ingest.chunks if c.drug_id == frame.drugs[0].drug_id
                     and c.section_key == DOSE), key=lambda c: c.part_index)
    ctx = frame.patient_context
    rows = answered_by_rows(chunks, ctx.crcl_ml_min is not None or ctx.egfr is not None or ctx.band is not None)
    policy = decide(Route.A_SECTION, [(c, None) for c in chunks], visual_blocks_whole_answer=not rows)
    assert policy.decision is Decision.ANSWERABLE
    plan = make_plan(frame, policy.evidence, Route.A_SECTION, list_mode=False)
    return policy.evidence, write(WriterInput(frame=frame, evidence=policy.evidence, route=Route.A_SECTION,
                                              plan=plan))


def test_two_turns_clarify_with_the_bands_then_the_reply_answers_its_row(sample_ingest: IngestResult) -> None:
    first = understand("Liều metformin cho người suy thận?", CATALOG, MATCHER)
    assert not first.ends_turn
    _, asked = _turn(first.frame, sample_ingest)
    assert not asked.claims and asked.clarifying_question == "eGFR (ml/phút/1,73 m²) của người bệnh ở mức nào?"
    assert asked.quick_replies == EGFR_REPLIES
    opened = first.frame.model_copy(update={"needs_clarify": True, "quick_replies": asked.quick_replies})
    for reply, printed in zip(asked.quick_replies, ("45 – 59", "30 – 44", "< 30"), strict=True):
        second = _reply(reply, opened)
        evidence, answer = _turn(second.frame, sample_ingest)
        assert len(answer.claims) == 1, reply
        claim = answer.claims[0]
        assert claim.text.split(" — ", 1)[1].startswith(f"eGFR (ml/phút/1,73 m²): {printed};"), reply
        assert claim.text in evidence[claim.citations[0] - 1].text
    weight = understand("Liều amoxicilin và acid clavulanic cho trẻ 2 tuổi?", CATALOG, MATCHER)
    _, asked = _turn(weight.frame, sample_ingest)
    assert asked.clarifying_question == "Cân nặng (kg) của người bệnh ở mức nào?"
    opened = weight.frame.model_copy(update={"needs_clarify": True, "quick_replies": asked.quick_replies})
    second = _reply("10 – 14,9", opened)
    assert second.frame.weight_kg is None and second.frame.patient_context.age_years == 2
    _, answer = _turn(second.frame, sample_ingest)
    assert [c.text.split(" — ", 1)[1].split(";")[0] for c in answer.claims] == ["Cân nặng (kg): 10 – 14,9"]
