"""Retrieval settings (environment variables): the runtime's, the embedder's, and the index's."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from duocthu_providers.embedding.settings import EmbeddingSettings
from duocthu_runtime import RuntimeSettings


class IndexSettings(EmbeddingSettings):
    qdrant_url: str | None = Field(default=None, description="Qdrant server (scale-out); unset: the embedded "
                                   "Qdrant Edge index under edge_dir")
    qdrant_api_key: str | None = None
    edge_dir: Path | None = Field(default=None, description="the embedded index (default $VAR_DIR/edge)")
    qdrant_path: Path | None = Field(default=None, description="qdrant-client local-mode directory: the "
                                     "reference the contract tests compare the Edge index with, never served")
    qdrant_timeout_s: float = Field(default=30.0, gt=0)
    index_alias: str = Field(default="duocthu_live", description="the alias queries read")
    index_collection_prefix: str = Field(default="duocthu", pattern=r"^[a-z0-9_-]+$")
    index_keep_collections: int = Field(
        default=2, ge=1, description="finished release collections kept (the live one included)"
    )
    index_upsert_batch: int = Field(default=256, ge=1, description="points per Qdrant upsert request")

    def edge_path(self) -> Path:
        return self.edge_dir or self.var_dir / "edge"

    def local_path(self) -> Path:
        return self.qdrant_path or self.var_dir / "qdrant"


class RetrievalSettings(RuntimeSettings, IndexSettings):
    service_name: str = "retrieval"
