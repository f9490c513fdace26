"""Routes A–D and the evidence policy against a real index of really embedded sample monographs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from duocthu_contracts.corpus import ChunkKind, ChunkRecord
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import CandidateStatus, Route, SafetyAspect
from duocthu_contracts.frame import ConditionRelation, DrugRef, PatientContext, QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_providers.embedding.cache import CachingEmbedder
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.application.indexing import Indexer
from duocthu_retrieval.application.query import Retriever, RouteResult
from duocthu_retrieval.domain.packing import ROUTE_B_BUDGET
from duocthu_retrieval.domain.routing import OVERVIEW_SECTIONS, plan_route
from duocthu_retrieval.errors import NotRoutable, RetrievalUnavailable
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_text.sparse import SparseEncoder
from tests.fixtures.index import IndexCorpus


@pytest.fixture(scope="module")
async def live(tmp_path_factory: pytest.TempPathFactory, index_corpus: IndexCorpus) -> AsyncIterator[QdrantIndex]:
    root: Path = tmp_path_factory.mktemp("routes")
    index = QdrantIndex.open(RetrievalSettings(var_dir=root, qdrant_path=root / "qdrant"))
    for message in index_corpus.batches("rel-routes", batch_size=64):
        await Indexer(index).apply(message)
    yield index
    await index.close()


@pytest.fixture
def retriever(live: QdrantIndex, index_embedder: CachingEmbedder, sparse_encoder: SparseEncoder) -> Retriever:
    return Retriever(live, index_embedder, sparse_encoder)


def drug(drug_id: str) -> DrugRef:
    return DrugRef(drug_id=drug_id, drug_name=drug_id.upper(), matched_text=drug_id)


def frame(turn_type: TurnType, *drugs: str, section: SectionKey | None = None, query: str = "",
          condition: str | None = None, patient: PatientContext | None = None,
          relation: ConditionRelation | None = None) -> QueryFrame:
    return QueryFrame(turn_type=turn_type, drugs=[drug(d) for d in drugs], section_key=section,
                      standalone_query=query, condition=condition, condition_relation=relation,
                      patient_context=patient or PatientContext())


async def run(retriever: Retriever, f: QueryFrame) -> RouteResult:
    return await retriever.run(plan_route(f), f)


def ids(chunks: Sequence[ChunkRecord]) -> list[str]:
    return [c.chunk_id for c in chunks]


async def test_route_a_reads_the_whole_section_in_part_order(retriever: Retriever, live: QdrantIndex) -> None:
    result = await run(retriever, frame(TurnType.DRUG_ATTRIBUTE, "paracetamol",
                                        section=SectionKey.LIEU_LUONG_VA_CACH_DUNG, query="liều paracetamol"))
    assert result.plan.route is Route.A_SECTION
    assert result.outcome.decision is Decision.ANSWERABLE
    section = await live.scroll_section("paracetamol", SectionKey.LIEU_LUONG_VA_CACH_DUNG)
    assert len(section) >= 3  # every part, not a top-k
    assert [e.evidence_id for e in result.outcome.evidence] == ids(section)
    assert [e.part_index for e in result.outcome.evidence] == list(range(len(section)))
    ref = result.outcome.evidence[0].source_refs[0]
    assert ref.printed_page_range[0] >= 1 and ref.bbox is not None


async def test_route_a_section_with_a_quarantined_table_is_verify_pdf(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.DRUG_ATTRIBUTE, "gentamicin",
                                        section=SectionKey.LIEU_LUONG_VA_CACH_DUNG))
    assert (result.outcome.decision, result.outcome.reason) == (Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED)
    visual = [e for e in result.outcome.evidence if e.requires_visual_check]
    assert visual and all(e.attachments and e.attachments[0].bbox for e in visual)


async def test_relation_questions_read_the_matching_section(retriever: Retriever) -> None:
    treats = await run(retriever, frame(TurnType.DRUG_TO_CONDITION, "metformin", condition="đái tháo đường typ 2"))
    assert {e.section_key for e in treats.outcome.evidence} == {SectionKey.CHI_DINH}
    contra = await run(retriever, frame(TurnType.CONDITION_RELATION, "metformin", condition="suy thận",
                                        relation=ConditionRelation.CONTRAINDICATED))
    assert {e.section_key for e in contra.outcome.evidence} == {SectionKey.CHONG_CHI_DINH}


async def test_route_b_overview_of_a_bare_name(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.DRUG_OVERVIEW, "losartan", query="losartan"))
    assert result.plan.route is Route.B_OVERVIEW and result.outcome.decision is Decision.ANSWERABLE
    keys = [e.section_key for e in result.outcome.evidence]
    assert set(keys) <= set(OVERVIEW_SECTIONS) and SectionKey.CHI_DINH in keys
    assert {e.drug_id for e in result.outcome.evidence} == {"losartan"}


async def test_route_b_free_form_stays_in_the_monograph_within_budget(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.DRUG_ATTRIBUTE, "paracetamol",
                                        query="paracetamol có gây độc cho gan không"))
    evidence = result.outcome.evidence
    assert result.plan.route is Route.B_OVERVIEW and evidence
    assert {e.drug_id for e in evidence} == {"paracetamol"}
    assert not any(e.requires_visual_check for e in evidence)
    assert any("gan" in e.text for e in evidence[:3])
    assert sum(max(len(e.text) // 3, 1) for e in evidence) <= ROUTE_B_BUDGET


async def test_route_c_finds_drugs_only_from_indications(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.CONDITION_TO_DRUG, condition="đái tháo đường typ 2",
                                        query="thuốc nào điều trị đái tháo đường typ 2"))
    assert result.plan.route is Route.C_CONDITION and result.list_mode
    assert "metformin" in result.candidate_drug_ids
    assert {e.section_key for e in result.outcome.evidence} == {SectionKey.CHI_DINH}
    per_drug: dict[str, int] = {}
    for e in result.outcome.evidence:
        per_drug[e.drug_id] = per_drug.get(e.drug_id, 0) + 1
    assert len(per_drug) <= 8 and max(per_drug.values()) <= 2
    assert result.assessments == []  # no patient facts, no stage 2


async def test_route_c_never_proposes_a_drug_from_its_contraindications(retriever: Retriever) -> None:
    # "nhiễm toan chuyển hóa" appears only in metformin's contraindications
    result = await run(retriever, frame(TurnType.CONDITION_TO_DRUG, condition="nhiễm toan chuyển hóa"))
    assert "metformin" not in result.candidate_drug_ids
    assert all(e.section_key is SectionKey.CHI_DINH for e in result.outcome.evidence)


async def test_route_c_patient_stage_flags_the_interaction_by_class_name(retriever: Retriever) -> None:
    patient = PatientContext(current_medications=[drug("warfarin")])
    result = await run(retriever, frame(TurnType.CONDITION_TO_DRUG, condition="hạ sốt", patient=patient))
    assert result.candidate_drug_ids[0] == "paracetamol"
    [assessment] = [a for a in result.assessments if a.drug_id == "paracetamol"]
    assert assessment.status is CandidateStatus.SUPPORTED_WITH_CAUTION
    [finding] = [f for f in assessment.findings if f.aspect is SafetyAspect.INTERACTION]
    assert "thuốc kháng vitamin K" in finding.matched_terms
    cited = {e.evidence_id for e in result.outcome.evidence}
    assert set(finding.evidence_ids) <= cited


async def test_route_c_missing_section_is_never_safe(retriever: Retriever) -> None:
    patient = PatientContext(breastfeeding=True)
    result = await run(retriever, frame(TurnType.CONDITION_TO_DRUG, condition="tăng huyết áp", patient=patient))
    assert result.assessments
    assert all(a.status is not CandidateStatus.SUPPORTED for a in result.assessments)


async def test_route_d_reads_both_interaction_sections(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.INTERACTION, "warfarin", "paracetamol"))
    assert result.plan.route is Route.D_INTERACTION
    assert {(e.drug_id, e.section_key) for e in result.outcome.evidence} == {
        ("warfarin", SectionKey.TUONG_TAC_THUOC), ("paracetamol", SectionKey.TUONG_TAC_THUOC)}


async def test_unknown_drug_has_no_evidence(retriever: Retriever) -> None:
    result = await run(retriever, frame(TurnType.DRUG_ATTRIBUTE, "khong_co_thuoc", section=SectionKey.CHI_DINH))
    assert (result.outcome.decision, result.outcome.reason) == (Decision.ABSTAIN, Reason.NO_EVIDENCE)


def test_frames_without_anything_to_look_up_are_not_routed() -> None:
    with pytest.raises(NotRoutable):
        plan_route(QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE))
    with pytest.raises(NotRoutable):
        plan_route(QueryFrame(turn_type=TurnType.CONDITION_TO_DRUG))


class FailingReranker:
    max_candidates = 4

    async def rerank(self, query: str, chunks: Sequence[ChunkRecord]) -> list[int]:
        raise TimeoutError("reranker down")


class ReversingReranker:
    max_candidates = 3

    async def rerank(self, query: str, chunks: Sequence[ChunkRecord]) -> list[int]:
        return list(reversed(range(len(chunks))))


async def test_reranker_is_bounded_and_fails_open(live: QdrantIndex, index_embedder: CachingEmbedder,
                                                  sparse_encoder: SparseEncoder) -> None:
    f = frame(TurnType.DRUG_ATTRIBUTE, "warfarin", query="warfarin gây chảy máu")
    plain = await run(Retriever(live, index_embedder, sparse_encoder), f)
    failing = await run(Retriever(live, index_embedder, sparse_encoder, reranker=FailingReranker()), f)
    assert [e.evidence_id for e in failing.outcome.evidence] == [e.evidence_id for e in plain.outcome.evidence]
    reordered = await run(Retriever(live, index_embedder, sparse_encoder, reranker=ReversingReranker()), f)
    before = [e.evidence_id for e in plain.outcome.evidence]
    after = [e.evidence_id for e in reordered.outcome.evidence]
    assert after[:3] == list(reversed(before[:3])) and after[3:] == before[3:]


async def test_a_closed_index_is_retrieval_unavailable(tmp_path: Path, index_embedder: CachingEmbedder,
                                                       sparse_encoder: SparseEncoder) -> None:
    index = QdrantIndex.open(RetrievalSettings(var_dir=tmp_path, qdrant_path=tmp_path / "qdrant"))
    retriever = Retriever(index, index_embedder, sparse_encoder)
    with pytest.raises(RetrievalUnavailable):  # no live alias: the index cannot serve
        await run(retriever, frame(TurnType.DRUG_ATTRIBUTE, "paracetamol", section=SectionKey.CHI_DINH))
    await index.close()


def test_block_descriptors_are_marked_visual(index_corpus: IndexCorpus) -> None:
    from duocthu_retrieval.domain.evidence_policy import to_evidence

    descriptor = next(c.chunk for c in index_corpus.chunks if c.chunk.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR)
    assert to_evidence(descriptor).requires_visual_check


async def test_route_c_checks_a_penicillin_allergy_by_the_allergen_not_by_every_hypersensitivity(
        retriever: Retriever) -> None:
    patient = PatientContext(allergies=["penicilin"])
    result = await run(retriever, frame(TurnType.CONDITION_TO_DRUG, condition="viêm phổi mắc phải ở cộng đồng",
                                        patient=patient))
    assert "amoxicilin" in result.candidate_drug_ids
    # every candidate is checked, not only the first ones
    assert {a.drug_id for a in result.assessments} == set(result.candidate_drug_ids)
    [amoxicilin] = [a for a in result.assessments if a.drug_id == "amoxicilin"]
    [allergy] = [f for f in amoxicilin.findings if f.aspect is SafetyAspect.ALLERGY]
    assert allergy.matched_terms == ["penicilin"]  # "quá mẫn" alone would match every drug's own
