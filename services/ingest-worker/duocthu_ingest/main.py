"""Composition root of the ingest worker: the one module that wires adapters to use cases.

``build_spec`` assembles the process (one job at a time from the work queue);
``run_ingest`` the parse alone (``duocthu ingest --mode local``, the evals and
benchmarks); ``ingest_cli`` the ``duocthu ingest`` command.
"""

from __future__ import annotations

from pathlib import Path

from duocthu_contracts.messages import IngestJobRequested
from duocthu_ingest.adapters import stack
from duocthu_ingest.adapters.pdf import PdfFiles
from duocthu_ingest.adapters.tokenizer import count_tokens
from duocthu_ingest.application.pipeline import IngestPipeline, IngestRequest, IngestResult, Progress
from duocthu_ingest.application.worker import IngestWorker, WorkerLimits
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.entrypoints.bus import make_handler
from duocthu_ingest.entrypoints.cli import IngestTools, ingest_commands
from duocthu_ingest.settings import IngestSettings
from duocthu_providers import Embedder, make_embedder, make_sparse_encoder
from duocthu_runtime import ServiceSpec, Stage, run_service

NAME = "ingest-worker"


def pipeline(download_dir: Path | None = None) -> IngestPipeline:
    """The parse over local files (and URLs fetched into ``download_dir``), token counts in cl100k_base."""
    return IngestPipeline(PdfFiles(download_dir or Path("var") / "ingest-downloads"), count_tokens)


def run_ingest(request: IngestRequest, progress: Progress | None = None) -> IngestResult:
    """Parse, gate and chunk one PDF in this process (no embedding)."""
    return pipeline().run(request, progress)


def page_count(pdf: Path) -> int:
    pages = PdfFiles(Path("var") / "ingest-downloads").open(pdf)
    try:
        return pages.page_count
    finally:
        pages.close()


def build_worker(settings: IngestSettings, *, config: IngestConfig | None = None,
                 embedder: Embedder | None = None) -> IngestWorker:
    source = PdfFiles(settings.download_dir())
    return IngestWorker(
        IngestPipeline(source, count_tokens), source, lambda: embedder or make_embedder(settings),
        make_sparse_encoder(), config=config,
        limits=WorkerLimits(residual_ink=settings.ingest_residual_ink, embed_batch=settings.ingest_embed_batch,
                            batch_max_bytes=settings.ingest_batch_max_bytes))


def build_spec(settings: IngestSettings | None = None, worker: IngestWorker | None = None) -> ServiceSpec:
    config = settings or IngestSettings(service_name=NAME)
    job_worker = worker or build_worker(config)

    def register(stage: Stage) -> None:
        stage.consumes(IngestJobRequested, make_handler(job_worker, stage.bus.publish_fire_and_forget),
                       ack_wait_s=config.ingest_ack_wait_s,
                       fetch_batch=1)

    return ServiceSpec(name=NAME, settings=config, register=register)


#: Jobs through a running stack (``duocthu up`` for the sample corpus, ``duocthu ingest`` in bus mode).
submit = stack.submit
submit_all = stack.submit_all

#: ``duocthu ingest PDF``.
ingest_cli = ingest_commands(IngestTools(parse=run_ingest, page_count=page_count, submit_all=submit_all))


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
