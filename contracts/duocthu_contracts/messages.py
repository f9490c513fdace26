"""Every message on the bus: one turn's chain and the ingest/corpus chain.

Turn payloads grow along the chain (each stage adds what it decided and keeps
what it was given) so that every stage is stateless and every message in the
audit log is self-explanatory on its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from duocthu_contracts.answer import AnswerBlock, AnswerPlan, Claim, Draft, Verdict
from duocthu_contracts.base import Frozen
from duocthu_contracts.corpus import DrugCatalog, EmbeddedChunk, EmbeddingModel, ReleaseManifest
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message, TurnMessage
from duocthu_contracts.evidence import CandidateAssessment, Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.seal import Seal

# --------------------------------------------------------------------------- turn chain


class HistoryTurn(Frozen):
    query: str
    decision: Decision | None = None
    reason: Reason | None = None
    turn_type: TurnType | None = None
    resolved_drug_ids: list[str] = Field(default_factory=list)
    at: datetime | None = None


class TurnContext(Frozen):
    query: str
    conversation_id: str | None = None
    response_mode: Literal["answer", "monograph"] = "answer"


class TurnRequestedPayload(TurnContext):
    history: list[HistoryTurn] = Field(default_factory=list)
    last_frame: QueryFrame | None = None
    clarify_streak: int = Field(default=0, ge=0)


class TurnUnderstoodPayload(TurnContext):
    frame: QueryFrame


class EvidenceRetrievedPayload(TurnUnderstoodPayload):
    route: Route
    evidence: list[Evidence] = Field(default_factory=list)
    list_mode: bool = False
    candidate_drug_ids: list[str] = Field(default_factory=list)
    candidate_assessments: list[CandidateAssessment] = Field(default_factory=list)


class AnswerDraftedPayload(EvidenceRetrievedPayload):
    plan: AnswerPlan
    draft: Draft
    attempt: int = Field(default=1, ge=1, le=2)
    proposed: Decision = Field(default=Decision.ANSWERABLE, description=(
        "the ending the draft asks the verifier to check and sign: answerable (the draft's claims) or "
        "verify_pdf (no claims: the evidence is to be read on the page)"))


class AnswerRejectedPayload(AnswerDraftedPayload):
    verdict: Verdict


class TurnCompletedPayload(TurnContext):
    decision: Decision
    reason: Reason
    completed_by: str
    answer: str = ""
    claims: list[Claim] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="claims' citation indices point here")
    quick_replies: list[str] = Field(default_factory=list, max_length=4)
    resolved_drug_ids: list[str] = Field(default_factory=list)
    generated: bool = False
    blocks: list[AnswerBlock] = Field(default_factory=list)
    plan: AnswerPlan | None = None
    candidate_assessments: list[CandidateAssessment] = Field(default_factory=list)
    frame: QueryFrame | None = None
    route: Route | None = None
    verdict: Verdict | None = None
    detail: str = Field(default="", description="operator-facing detail, never shown as an answer")


class TurnVerifiedPayload(TurnCompletedPayload):
    seal: Seal = Field(description="the verifier's signature over what this completion shows (seal.py)")


class TurnProgressPayload(Frozen):
    stage: str
    status: str


class TurnRequested(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.turn.requested/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: TurnRequestedPayload


class TurnUnderstood(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.turn.understood/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: TurnUnderstoodPayload


class EvidenceRetrieved(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.evidence.retrieved/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: EvidenceRetrievedPayload


class AnswerDrafted(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.answer.drafted/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: AnswerDraftedPayload


class AnswerRejected(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.answer.rejected/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: AnswerRejectedPayload


class TurnCompleted(TurnMessage):
    """The end of a turn, by any stage: only ``clarify`` or ``abstain`` in code-owned wording are shown from it."""

    SCHEMA: ClassVar[str] = "rag.turn.completed/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: TurnCompletedPayload


class TurnVerified(TurnCompleted):
    """The end of a turn by the verifier, sealed: the only way an answer (or the PDF to read) reaches a user.

    Its subject is the verifier's alone (``topology.py``, ``exclusive``); the
    gateway shows it only when the seal verifies under a configured public key.
    """

    SCHEMA: ClassVar[str] = "rag.turn.verified/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: TurnVerifiedPayload


class TurnProgress(TurnMessage):
    SCHEMA: ClassVar[str] = "rag.turn.progress/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: TurnProgressPayload


# --------------------------------------------------------------------------- ingest / corpus chain


class IngestJobRequestedPayload(Frozen):
    job_id: str
    release_id: str
    pdf_uri: str = Field(description="filesystem path or file:// / http(s):// URL of the PDF")
    transcriptions_uri: str | None = None
    page_range: tuple[int, int] | None = Field(default=None, description="physical pages, inclusive")
    part_index: int = Field(default=0, ge=0)
    part_count: int = Field(default=1, ge=1)


class IngestJobResultPayload(Frozen):
    job_id: str
    release_id: str
    status: Literal["embedded", "failed"]
    error: str | None = None
    gates: dict[str, int] = Field(default_factory=dict)
    report: dict[str, object] = Field(default_factory=dict)
    chunk_count: int = 0
    batch_count: int = 0


class CorpusBatchEmbeddedPayload(Frozen):
    release_id: str
    job_id: str
    part_index: int = Field(ge=0)
    part_count: int = Field(ge=1)
    batch_index: int = Field(ge=0)
    batch_count: int = Field(ge=1, description="batches in this part")
    part_chunk_count: int = Field(ge=0)
    corpus_sha256: str = Field(description="sha256 of this part's normalized chunk records")
    source_sha256: str
    model: EmbeddingModel
    chunks: list[EmbeddedChunk]
    catalog: DrugCatalog | None = Field(default=None, description="set on batch 0 of each part")


class CorpusReleaseResultPayload(Frozen):
    release_id: str
    status: Literal["live", "failed"]
    manifest: ReleaseManifest | None = None
    catalog: DrugCatalog | None = None
    error: str | None = None


class IngestJobProgressPayload(Frozen):
    """How far one ingest job is: advisory (core NATS, not stored), the latest one replaces the earlier."""

    job_id: str
    release_id: str
    part_index: int = Field(default=0, ge=0)
    stage: Literal["parse", "embed", "done", "failed"] = Field(
        description="parse: pages read, gated and chunked; embed: chunks embedded")
    done: int = Field(ge=0)
    total: int | None = Field(default=None, ge=0, description="unknown until the stage knows its size")


class IngestJobProgress(Message):
    SCHEMA: ClassVar[str] = "ingest.job.progress/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: IngestJobProgressPayload


class IngestJobRequested(Message):
    SCHEMA: ClassVar[str] = "ingest.job.requested/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: IngestJobRequestedPayload


class IngestJobResult(Message):
    SCHEMA: ClassVar[str] = "ingest.job.result/1"
    #: Results go to the corpus stream, next to the batches they report on (the job queue holds jobs only).
    SUBJECT: ClassVar[str] = "corpus.v1.job.result"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: IngestJobResultPayload


class CorpusBatchEmbedded(Message):
    SCHEMA: ClassVar[str] = "corpus.batch.embedded/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: CorpusBatchEmbeddedPayload


class CorpusReleaseCompleted(Message):
    SCHEMA: ClassVar[str] = "corpus.release.completed/1"
    schema_: str = Field(default=SCHEMA, alias="schema")
    payload: CorpusReleaseResultPayload


TURN_MESSAGES: tuple[type[TurnMessage], ...] = (
    TurnRequested,
    TurnUnderstood,
    EvidenceRetrieved,
    AnswerDrafted,
    AnswerRejected,
    TurnCompleted,
    TurnVerified,
    TurnProgress,
)
CORPUS_MESSAGES: tuple[type[Message], ...] = (
    IngestJobRequested,
    IngestJobProgress,
    IngestJobResult,
    CorpusBatchEmbedded,
    CorpusReleaseCompleted,
)
ALL_MESSAGES: tuple[type[Message], ...] = TURN_MESSAGES + CORPUS_MESSAGES
