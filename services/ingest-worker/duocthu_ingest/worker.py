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
from pathlib import Path
from typing import Literal

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import IngestJobRequestedPayload, IngestJobResult, IngestJobResultPayload
from duocthu_ingest.adapters.source import resolve_pdf
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.errors import IngestError
from duocthu_ingest.pipeline import IngestRequest, IngestResult, run_ingest
from duocthu_ingest.publishing import batch_messages, embed_chunks
from duocthu_ingest.settings import IngestSettings
from duocthu_providers.embedding.factory import make_embedder, make_sparse_encoder, space_identity
from duocthu_providers.embedding.port import Embedder
from duocthu_runtime.bus.envelope import new_message
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)
_RESULT_NS = uuid.UUID("5f1e0c3a-73a4-4b0f-8f53-2c4b9d0e7a61")


class IngestWorker:
    def __init__(self, settings: IngestSettings, *, config: IngestConfig | None = None,
                 embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.config = config or IngestConfig()
        self._embedder = embedder
        self.sparse = make_sparse_encoder()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    def parse(self, job: IngestJobRequestedPayload, progress: Callable[[int, int], None] | None = None) -> IngestResult:
        pdf = resolve_pdf(job.pdf_uri, self.settings.download_dir())
        transcriptions = resolve_pdf(job.transcriptions_uri, self.settings.download_dir()) \
            if job.transcriptions_uri else None
        request = IngestRequest(pdf=pdf, transcriptions=Path(transcriptions) if transcriptions else None,
                                page_range=job.page_range, config=self.config,
                                residual_ink=self.settings.ingest_residual_ink)
        return run_ingest(request, progress=progress)

    def process(self, job: IngestJobRequestedPayload, *, correlation_id: str, causation_id: str,
                progress: Callable[[int, int], None] | None = None) -> list[Message]:
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
        embedded = embed_chunks(result.chunks, self.embedder, self.sparse, batch=self.settings.ingest_embed_batch)
        model = space_identity(self.embedder, self.sparse)
        batches = batch_messages(
            embedded, catalog=result.catalog, model=model, release_id=job.release_id, job_id=job.job_id,
            part_index=job.part_index, part_count=job.part_count, corpus_sha256=result.corpus_sha256,
            source_sha256=result.source_sha256, max_bytes=self.settings.ingest_batch_max_bytes,
            correlation_id=correlation_id, causation_id=causation_id,
        )
        log.info("ingest_job_embedded", job_id=job.job_id, chunks=len(embedded), batches=len(batches))
        done = self._result(job, "embedded", correlation_id, causation_id, gates=gates, report=result.report,
                            chunks=len(embedded), batches=len(batches))
        return [*batches, done]

    def _result(self, job: IngestJobRequestedPayload, status: Literal["embedded", "failed"], correlation_id: str, causation_id: str, *,
                error: str | None = None, gates: dict[str, int] | None = None,
                report: dict[str, object] | None = None, chunks: int = 0, batches: int = 0) -> IngestJobResult:
        payload = IngestJobResultPayload(job_id=job.job_id, release_id=job.release_id, status=status,
                                         error=error, gates=gates or {}, report=report or {}, chunk_count=chunks,
                                         batch_count=batches)
        message_id = uuid.uuid5(_RESULT_NS, f"{job.job_id}/{job.part_index}/{status}").hex
        return new_message(IngestJobResult, payload, correlation_id=correlation_id, causation_id=causation_id,
                           message_id=message_id)
