"""Prometheus metrics of the embedding adapters (bounded labels only)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

EMBEDDED_TEXTS = Counter(
    "duocthu_embedding_texts_total", "Texts sent to an embedding provider", ["provider", "side"]
)
WINDOWED_INPUTS = Counter(
    "duocthu_embedding_windowed_inputs_total",
    "Inputs longer than the model window that were embedded in explicit windows",
    ["provider", "side"],
)
CACHE_LOOKUPS = Counter(
    "duocthu_embedding_cache_lookups_total", "Embedding cache lookups", ["side", "outcome"]
)
PROVIDER_ERRORS = Counter(
    "duocthu_embedding_provider_errors_total", "Embedding provider calls that failed", ["provider", "kind"]
)
PROVIDER_LATENCY = Histogram(
    "duocthu_embedding_provider_seconds",
    "Time of one embedding provider call",
    ["provider", "side"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
