"""Index build time and query latency on a full-size (~15,000 chunk) synthetic corpus.

    duocthu bench index [--drugs 684] [--queries 100] [--repeats 5] [--qdrant-url URL]

The chunks have the real book's shape (684 monographs, ~18 sections each,
long sections in several parts, schema v4 records) with synthetic Vietnamese
text; sparse vectors come from the real encoder, dense vectors are random
unit vectors (384-d): brute-force and HNSW search cost does not depend on
what the vectors mean, and embedding 15,000 chunks on this CPU would take
most of an hour (see ``duocthu bench embeddings`` for that rate).  The build goes
through the real indexer (batches of 64, ledger, count gate, manifest,
alias); queries go through the adapter API the retrieval routes use.
The embedded Qdrant Edge index by default (a fresh temporary directory), or a
server with ``--qdrant-url``.  Each operation is timed ``--repeats`` times
over ``--queries`` queries; the printed p50 and p95 are medians over repeats.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from duocthu_contracts.corpus import ChunkRecord, EmbeddedChunk, EmbeddingModel
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusBatchEmbeddedPayload
from duocthu_contracts.sections import SECTION_HEADINGS, SECTION_ORDER, SectionKey
from duocthu_retrieval import Indexer, RetrievalSettings, SearchFilter, open_index
from duocthu_runtime import new_message
from duocthu_text.sparse import SparseEncoder

SYLLABLES = ["thuốc", "liều", "dùng", "người", "lớn", "trẻ", "em", "mỗi", "ngày", "uống", "tiêm", "tĩnh", "mạch", "suy", "thận", "suy", "gan", "tăng", "huyết", "áp", "đái", "tháo", "đường", "nhiễm", "khuẩn", "viêm", "phổi", "hen", "phế", "quản", "động", "kinh", "gút", "cấp", "đau", "đầu", "sốt", "buồn", "nôn", "tiêu", "chảy", "phát", "ban", "chóng", "mặt", "thận", "trọng", "chống", "chỉ", "định", "tương", "tác", "giảm", "tác", "dụng", "nồng", "độ", "huyết", "tương", "chuyển", "hóa", "thải", "trừ", "nửa", "đời", "theo", "dõi", "chức", "năng", "điều", "chỉnh", "khoảng", "cách", "bệnh", "nhân", "phụ", "nữ", "mang", "thai", "cho", "con", "bú", "quá", "liều", "xử", "trí", "ngừng", "thuốc"]
CONDITIONS = ["tăng huyết áp", "đái tháo đường typ 2", "viêm phổi", "hen phế quản", "động kinh", "gút cấp",
              "suy tim", "nhiễm khuẩn đường tiết niệu", "loét dạ dày", "suy giáp"]


def synthetic_chunks(drugs: int, seed: int) -> list[ChunkRecord]:
    rng = random.Random(seed)
    chunks: list[ChunkRecord] = []
    for d in range(drugs):
        drug_id = f"thuoc_{d:04d}"
        keys = [k for k in SECTION_ORDER if k is SectionKey.CHI_DINH or rng.random() < 0.9][:18]
        for key in keys:
            parts = 3 if key in (SectionKey.LIEU_LUONG_VA_CACH_DUNG, SectionKey.TUONG_TAC_THUOC) else 1
            parts += 1 if rng.random() < 0.05 else 0
            for part in range(parts):
                words = [rng.choice(SYLLABLES) for _ in range(rng.randint(60, 220))]
                if key is SectionKey.CHI_DINH:
                    words[5:5] = rng.choice(CONDITIONS).split()
                text = " ".join(words) + "."
                chunks.append(ChunkRecord(
                    chunk_id=f"{drug_id}__{key}__{part}", drug_id=drug_id, drug_name=drug_id.upper(),
                    section_key=key, section_display_name=SECTION_HEADINGS[key], text=text, source_text=text,
                    heading_physical_page=100 + d * 2, source_page_range=(100 + d * 2, 101 + d * 2),
                    printed_page_range=(99 + d * 2, 100 + d * 2), atc_codes=[f"A{d % 99:02d}BA{d % 97:02d}"],
                    part_index=part, part_count=parts, est_tokens=len(words) * 2,
                ))
    return chunks


def batches(chunks: list[ChunkRecord], model: EmbeddingModel, sparse: SparseEncoder,
            seed: int) -> list[CorpusBatchEmbedded]:
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((len(chunks), model.dimensions)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    embedded = [EmbeddedChunk(chunk=c, dense=dense[i].tolist(), sparse=sparse.encode_document(c.text))
                for i, c in enumerate(chunks)]
    size = 64
    count = -(-len(embedded) // size)
    return [new_message(CorpusBatchEmbedded, CorpusBatchEmbeddedPayload(
        release_id="bench", job_id="bench", part_index=0, part_count=1, batch_index=i, batch_count=count,
        part_chunk_count=len(embedded), corpus_sha256="bench", source_sha256="bench", model=model,
        chunks=embedded[i * size:(i + 1) * size])) for i in range(count)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(label: str, runs: int, call: Callable[[int], Awaitable[int]], repeats: int = 1) -> None:
    """p50 and p95 of ``runs`` calls, each the median over ``repeats`` repetitions of the whole run."""
    await call(0)  # warm-up
    p50s, p95s, sizes = [], [], []
    for _ in range(repeats):
        latencies = []
        for i in range(runs):
            t0 = time.perf_counter()
            sizes.append(await call(i + 1))
            latencies.append((time.perf_counter() - t0) * 1000)
        p50s.append(statistics.median(latencies))
        p95s.append(percentile(latencies, 0.95))
    print(f"{label:<34} p50 {statistics.median(p50s):8.2f} ms   p95 {statistics.median(p95s):8.2f} ms"
          f"   ({statistics.mean(sizes):.1f} results)")


async def run_index(*, drugs: int, queries: int, seed: int, repeats: int, qdrant_url: str | None) -> None:
    """Build the synthetic index, then time each kind of query; prints the build rate and the latencies."""
    sparse = SparseEncoder()
    model = EmbeddingModel(provider="bench", model_id="random-unit-384", dimensions=384, input_kind="passage",
                           sparse_model=sparse.model_id)
    t0 = time.perf_counter()
    chunks = synthetic_chunks(drugs, seed)
    messages = batches(chunks, model, sparse, seed)
    print(f"synthetic corpus: {drugs} monographs, {len(chunks)} chunks, {len(messages)} batches "
          f"(generated in {time.perf_counter() - t0:.1f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        settings = RetrievalSettings(var_dir=Path(tmp), qdrant_url=qdrant_url,
                                     index_collection_prefix="bench")
        index = open_index(settings)
        print(f"qdrant: {index.where}")
        indexer = Indexer(index)
        t0 = time.perf_counter()
        results = []
        for message in messages:
            results += await indexer.apply(message)
        build = time.perf_counter() - t0
        assert [r.payload.status for r in results] == ["live"], results
        print(f"index build (upserts, ledger, count gate, manifest, alias): {build:.1f} s "
              f"= {len(chunks) / build:.0f} chunks/s")
        rng = random.Random(seed + 1)
        drug_sections = sorted({(c.drug_id, c.section_key) for c in chunks})
        chi_dinh = SearchFilter(section_keys=(SectionKey.CHI_DINH,))
        vectors = np.random.default_rng(seed + 2).standard_normal((queries + 1, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

        async def scroll(i: int) -> int:
            drug, key = rng.choice(drug_sections)
            return len(await index.scroll_section(drug, key))

        async def dense(i: int) -> int:
            return len(await index.dense_search(vectors[i].tolist(), limit=10))

        async def dense_filtered(i: int) -> int:
            return len(await index.dense_search(vectors[i].tolist(), chi_dinh, limit=10))

        async def sparse_q(i: int) -> int:
            return len(await index.sparse_search(sparse.encode_query(rng.choice(CONDITIONS)), chi_dinh, limit=10))

        async def hybrid(i: int) -> int:
            query = sparse.encode_query(rng.choice(CONDITIONS))
            return len(await index.hybrid_search(vectors[i].tolist(), query, chi_dinh, limit=10))

        async def phrase(i: int) -> int:
            return len(await index.text_match(rng.choice(CONDITIONS), chi_dinh, limit=100))

        print(f"query latency over {queries} queries each:")
        await timed("filter-scroll (drug + section)", queries, scroll, repeats)
        await timed("dense top-10 (whole corpus)", queries, dense, repeats)
        await timed("dense top-10 (chi_dinh filter)", queries, dense_filtered, repeats)
        await timed("sparse top-10 (chi_dinh filter)", queries, sparse_q, repeats)
        await timed("hybrid RRF top-10 (chi_dinh)", queries, hybrid, repeats)
        await timed("phrase match (chi_dinh, <=100)", queries, phrase, repeats)
        if qdrant_url:
            for name in await index.release_collections():
                await index.drop(name)
        await index.close()


