"""One ingest job, start to finish: fetch, parse and gate, embed, cut into batches, report.

A job whose gates fail publishes nothing for release: only the failed
``IngestJobResult`` carrying the gate report.  A job that cannot even be read
(not a PDF, encrypted, truncated, no monographs) fails the same way with the
reason.  An embedder outage is different: it is raised so the bus redelivers
the job later instead of failing a good book.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import IngestJobRequestedPayload, IngestJobResult, IngestJobResultPayload
from duocthu_ingest.application.pipeline import IngestPipeline, IngestRequest, IngestResult, Progress
from duocthu_ingest.application.publishing import batch_messages, embed_chunks
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.errors import IngestError
from duocthu_ingest.ports import PdfSource
from duocthu_providers import Embedder, space_identity
from duocthu_runtime import get_logger, new_message
from duocthu_text import SparseEncoder

log = get_logger(__name__)
_RESULT_NS = uuid.UUID("5f1e0c3a-73a4-4b0f-8f53-2c4b9d0e7a61")


@dataclass(frozen=True)
class WorkerLimits:
    residual_ink: bool = True
    embed_batch: int = 64
    batch_max_bytes: int = 3_500_000


class IngestWorker:
    def __init__(self, pipeline: IngestPipeline, source: PdfSource, embedder: Callable[[], Embedder],
                 sparse: SparseEncoder, *, config: IngestConfig | None = None,
                 limits: WorkerLimits | None = None) -> None:
        self.pipeline = pipeline
        self.source = source
        self._make_embedder = embedder
        self._embedder: Embedder | None = None
        self.sparse = sparse
        self.config = config or IngestConfig()
        self.limits = limits or WorkerLimits()

    @property
    def embedder(self) -> Embedder:
        """Loaded on the first job that passes its gates (a model load is not paid by a failing job)."""
        if self._embedder is None:
            self._embedder = self._make_embedder()
        return self._embedder

    def parse(self, job: IngestJobRequestedPayload, progress: Progress | None = None) -> IngestResult:
        pdf = self.source.fetch(job.pdf_uri)
        transcriptions = self.source.fetch(job.transcriptions_uri) if job.transcriptions_uri else None
        request = IngestRequest(pdf=pdf, transcriptions=transcriptions, page_range=job.page_range,
                                config=self.config, residual_ink=self.limits.residual_ink)
        return self.pipeline.run(request, progress=progress)

    def process(self, job: IngestJobRequestedPayload, *, correlation_id: str, causation_id: str,
                progress: Progress | None = None, embedded_progress: Progress | None = None) -> list[Message]:
        """Parse, gate, chunk and embed one job; ``progress`` gets (page, pages), ``embedded_progress`` (chunks, of)."""
        log.info("ingest_job_started", job_id=job.job_id, release_id=job.release_id, pdf=job.pdf_uri,
                 page_range=job.page_range)
        try:
            result = self.parse(job, progress)
        except IngestError as exc:
            log.warning("ingest_job_rejected", job_id=job.job_id, error=str(exc))
            return [self._result(job, "failed", correlation_id, causation_id, error=str(exc))]
        gates = result.gates.counters()
        if not result.released:
            failed = ", ".join(f"{g.name}={g.value}" for g in result.gates.failed())
            log.warning("ingest_job_gates_failed", job_id=job.job_id, failed=failed)
            return [self._result(job, "failed", correlation_id, causation_id, gates=gates, report=result.report,
                                 error=f"cổng kiểm tra không đạt: {failed}", chunks=len(result.chunks))]
        total = len(result.chunks)
        if embedded_progress is not None:
            embedded_progress(0, total)  # a part may own no chunks: its progress still moves on to embedding
        embedded = embed_chunks(result.chunks, self.embedder, self.sparse, batch=self.limits.embed_batch,
                                progress=(lambda done: embedded_progress(done, total)) if embedded_progress else None)
        model = space_identity(self.embedder, self.sparse)
        batches = batch_messages(
            embedded, catalog=result.catalog, model=model, release_id=job.release_id, job_id=job.job_id,
            part_index=job.part_index, part_count=job.part_count, corpus_sha256=result.corpus_sha256,
            source_sha256=result.source_sha256, max_bytes=self.limits.batch_max_bytes,
            correlation_id=correlation_id, causation_id=causation_id,
        )
        log.info("ingest_job_embedded", job_id=job.job_id, chunks=len(embedded), batches=len(batches))
        done = self._result(job, "embedded", correlation_id, causation_id, gates=gates, report=result.report,
                            chunks=len(embedded), batches=len(batches))
        return [*batches, done]

    def _result(self, job: IngestJobRequestedPayload, status: Literal["embedded", "failed"], correlation_id: str,
                causation_id: str, *, error: str | None = None, gates: dict[str, int] | None = None,
                report: dict[str, object] | None = None, chunks: int = 0, batches: int = 0) -> IngestJobResult:
        payload = IngestJobResultPayload(job_id=job.job_id, release_id=job.release_id, status=status,
                                         error=error, gates=gates or {}, report=report or {}, chunk_count=chunks,
                                         batch_count=batches)
        message_id = uuid.uuid5(_RESULT_NS, f"{job.job_id}/{job.part_index}/{status}").hex
        return new_message(IngestJobResult, payload, correlation_id=correlation_id, causation_id=causation_id,
                           message_id=message_id)
