"""Prometheus metrics of the index (bounded labels only)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

INDEX_BATCHES = Counter("duocthu_index_batches_total", "Corpus batches handled by the indexer", ["outcome"])
INDEX_RELEASES = Counter("duocthu_index_releases_total", "Releases finalised by the indexer", ["status"])
INDEX_LIVE_CHUNKS = Gauge("duocthu_index_live_chunks", "Chunks in the live release (from its manifest)")
INDEX_READY = Gauge("duocthu_index_ready", "1 when the live manifest matches this replica's query embedder")

ROUTE_OUTCOMES = Counter("duocthu_retrieval_outcomes_total", "Turns handled by route and policy reason",
                         ["route", "reason"])
