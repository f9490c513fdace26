"""Which subject a message goes to, given its lane and origin."""

from __future__ import annotations

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerRejected,
    CorpusBatchEmbedded,
    CorpusReleaseCompleted,
    EvidenceRetrieved,
    IngestJobRequested,
    IngestJobResult,
    TurnCompleted,
    TurnProgress,
    TurnRequested,
    TurnUnderstood,
)

BASE_SUBJECTS: dict[type[Message], str] = {
    TurnRequested: s.TURN_REQUESTED,
    TurnUnderstood: s.TURN_UNDERSTOOD,
    EvidenceRetrieved: s.EVIDENCE_RETRIEVED,
    AnswerDrafted: s.ANSWER_DRAFTED,
    AnswerRejected: s.ANSWER_REJECTED,
    TurnCompleted: s.TURN_COMPLETED,
    TurnProgress: s.TURN_PROGRESS,
    IngestJobRequested: s.INGEST_JOB_REQUESTED,
    IngestJobResult: s.INGEST_JOB_RESULT,
    CorpusBatchEmbedded: s.CORPUS_BATCH_EMBEDDED,
    CorpusReleaseCompleted: s.CORPUS_RELEASE_COMPLETED,
}

# Subjects addressed to one gateway replica carry its origin as a last token.
_ADDRESSED = (TurnCompleted, TurnProgress)


def lane_subject(base: str, lane: Lane) -> str:
    return f"{s.SHADOW_PREFIX}{base}" if lane is Lane.SHADOW else base


def subject_for(message: Message) -> str:
    base = BASE_SUBJECTS[type(message)]
    if isinstance(message, TurnMessage):
        if isinstance(message, _ADDRESSED):
            base = f"{base}.{origin_token(message.origin)}"
        return lane_subject(base, message.lane)
    return base


def subject_for_type(cls: type[Message], lane: Lane = Lane.LIVE) -> str:
    """The subject a consumer of ``cls`` listens on (non-addressed messages only)."""
    return lane_subject(BASE_SUBJECTS[cls], lane)


def origin_token(origin: str) -> str:
    """An origin as a single subject token (NATS tokens cannot hold '.', '*', '>' or spaces)."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in origin)


def stream_for(subject: str) -> str:
    if subject.startswith(s.SHADOW_PREFIX):
        return s.SHADOW_STREAM
    if subject.startswith("rag."):
        return s.AUDIT_STREAM
    if subject.startswith("ingest."):
        return s.INGEST_STREAM
    if subject.startswith("corpus."):
        return s.CORPUS_STREAM
    raise ValueError(f"subject {subject!r} is not captured by any stream")
