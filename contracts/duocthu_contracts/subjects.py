"""NATS subjects and JetStream stream names (DESIGN.md, "One turn, as messages").

Completion and progress subjects end with the ``origin`` token of the gateway
replica that holds the HTTP request, so the answer is delivered to that
replica only.  Shadow (audit replay) traffic runs the same chain under the
``shadow.`` prefix and is captured by its own stream.
"""

from __future__ import annotations

TURN_REQUESTED = "rag.v1.turn.requested"
TURN_UNDERSTOOD = "rag.v1.turn.understood"
EVIDENCE_RETRIEVED = "rag.v1.evidence.retrieved"
ANSWER_DRAFTED = "rag.v1.answer.drafted"
ANSWER_REJECTED = "rag.v1.answer.rejected"
TURN_COMPLETED = "rag.v1.turn.completed"  # + ".<origin>"
TURN_PROGRESS = "rag.v1.turn.progress"  # + ".<origin>"

INGEST_JOB_REQUESTED = "ingest.v1.job.requested"
INGEST_JOB_RESULT = "corpus.v1.job.result"
CORPUS_BATCH_EMBEDDED = "corpus.v1.batch.embedded"
CORPUS_RELEASE_COMPLETED = "corpus.v1.release.completed"

SHADOW_PREFIX = "shadow."

# Request/reply subjects (core NATS).  Deliberately outside "rag.>": a subject
# captured by a stream would get a JetStream PubAck racing the real reply.
RPC_DRUGS = "svc.v1.retrieval.drugs"
RPC_SECTIONS = "svc.v1.retrieval.sections"
RPC_SECTION_TEXT = "svc.v1.retrieval.section_text"
RPC_INDEX_STATUS = "svc.v1.retrieval.index_status"
RPC_INDEX_REBUILD = "svc.v1.retrieval.index_rebuild"

AUDIT_STREAM = "RAG_AUDIT"
AUDIT_SUBJECTS = ("rag.>",)
# Redacted copies of audit messages whose patient-context fields were erased at rest.
AUDIT_REDACTED_STREAM = "RAG_AUDIT_REDACTED"
AUDIT_REDACTED_PREFIX = "audit.redacted."
AUDIT_REDACTED_SUBJECTS = ("audit.redacted.>",)
SHADOW_STREAM = "RAG_SHADOW"
SHADOW_SUBJECTS = ("shadow.rag.>",)
INGEST_STREAM = "INGEST_JOBS"  # work queue: each job is handled once
INGEST_SUBJECTS = (INGEST_JOB_REQUESTED,)
CORPUS_STREAM = "CORPUS"  # the index is a projection of this stream
CORPUS_SUBJECTS = ("corpus.>",)
