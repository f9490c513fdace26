"""JetStream streams and the subjects they capture (DESIGN.md, "One turn, as messages").

A message's own subject is written once, as ``SUBJECT`` on its class
(:mod:`duocthu_contracts.messages`, :mod:`duocthu_contracts.rpc`), next to its
schema name.  Completion and progress subjects end with the ``origin`` token
of the gateway replica that holds the HTTP request (``addressed`` in
:mod:`duocthu_contracts.topology`), so the answer is delivered to that replica
only.  Shadow (audit replay) traffic
runs the same chain under the ``shadow.`` prefix and is captured by its own
stream.
"""

from __future__ import annotations

from duocthu_contracts.messages import IngestJobRequested

SHADOW_PREFIX = "shadow."

AUDIT_STREAM = "RAG_AUDIT"
AUDIT_SUBJECTS = ("rag.>",)
# Redacted copies of audit messages whose patient-context fields were erased at rest.
AUDIT_REDACTED_STREAM = "RAG_AUDIT_REDACTED"
AUDIT_REDACTED_PREFIX = "audit.redacted."
AUDIT_REDACTED_SUBJECTS = ("audit.redacted.>",)
SHADOW_STREAM = "RAG_SHADOW"
SHADOW_SUBJECTS = ("shadow.rag.>",)
INGEST_STREAM = "INGEST_JOBS"  # work queue: each job is handled once
INGEST_SUBJECTS = (IngestJobRequested.SUBJECT,)
CORPUS_STREAM = "CORPUS"  # the index is a projection of this stream
CORPUS_SUBJECTS = ("corpus.>",)

#: The KV buckets: which processes are live (every identity), and the gateway's per-client rate limit.
PRESENCE_BUCKET = "duocthu_presence"
RATE_LIMIT_BUCKET = "gateway_rate"
