"""Ingest worker settings (environment variables): the runtime's, the embedder's, and the worker's own."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from duocthu_providers.embedding.settings import EmbeddingSettings
from duocthu_runtime import RuntimeSettings


class IngestSettings(RuntimeSettings, EmbeddingSettings):
    service_name: str = "ingest-worker"
    ingest_residual_ink: bool = Field(default=True, description="render pages and classify residual ink (QA gate)")
    ingest_batch_max_bytes: int = Field(
        default=3_500_000, ge=100_000, description="upper bound of one corpus.v1.batch.embedded message (JSON bytes)"
    )
    ingest_ack_wait_s: float = Field(default=120.0, gt=0, description="redelivery delay of an ingest job")
    ingest_download_dir: Path | None = Field(default=None, description="where http(s) PDFs are fetched to")
    ingest_embed_batch: int = Field(default=64, ge=1, description="chunks per embed_documents call")

    def download_dir(self) -> Path:
        return self.ingest_download_dir or self.var_dir / "ingest-downloads"
