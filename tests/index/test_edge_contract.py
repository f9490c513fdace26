"""Same queries, same results: the Qdrant Edge adapter against qdrant-client's local mode.

Local mode is kept only as this reference (it is never served): it runs
Qdrant's own query semantics in Python, so it says what a Qdrant server would
answer.  Both stores get the same release through the same indexer; every
read the routes make must then agree — sections and filters exactly, search
rankings exactly, scores to float precision.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from duocthu_contracts.sections import SectionKey
from duocthu_providers.embedding.cache import CachingEmbedder
from duocthu_retrieval.adapters.edge_index import EdgeIndex
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.application.indexing import Indexer
from duocthu_retrieval.domain.search import ScoredChunk, SearchFilter
from duocthu_retrieval.errors import IndexUnavailable
from duocthu_retrieval.ports import VectorIndex
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_text.sparse import SparseEncoder
from tests.fixtures.index import IndexCorpus

QUERIES = (
    "Liều dùng gentamicin cho người lớn?",
    "Tác dụng không mong muốn của losartan?",
    "Tương tác thuốc của warfarin",
    "Quá liều paracetamol xử trí thế nào?",
    "metformin chong chi dinh",
    "thuốc nào dùng cho đái tháo đường typ 2",
    "suy thận",
    "amoxicilin trẻ em",
)
FILTERS = (
    SearchFilter(),
    SearchFilter(section_keys=(SectionKey.CHI_DINH,)),
    SearchFilter(drug_ids=("warfarin", "metformin"), exclude_quarantined=True),
    SearchFilter(exclude_section_keys=(SectionKey.TEN_THUONG_MAI, SectionKey.MA_ATC)),
)


@dataclass
class Pair:
    edge: VectorIndex
    reference: VectorIndex


@pytest.fixture(scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory, index_corpus: IndexCorpus) -> AsyncIterator[Pair]:
    root: Path = tmp_path_factory.mktemp("contract")
    settings = RetrievalSettings(var_dir=root, qdrant_path=root / "qdrant")
    edge, reference = EdgeIndex.open(settings), QdrantIndex.open(settings)
    for index in (edge, reference):
        indexer = Indexer(index)
        results = []
        for message in index_corpus.batches("rel-contract", batch_size=24):
            results += await indexer.apply(message)
        assert [r.payload.status for r in results] == ["live"]
    yield Pair(edge, reference)
    await edge.close()
    await reference.close()


#: Scores this close are a tie: the engines sum in different orders and precisions (Edge in f32).
TIE = 1e-5


def _assert_same(edge: list[ScoredChunk], reference: list[ScoredChunk]) -> None:
    """The same ranking up to ties: the same score at every rank, and every chunk at its reference score.

    Two chunks whose scores differ by float noise may come in either order (a tie-break by rounded score
    is no cure: two such scores can round apart), and one tied with the last reference hit may stand in
    for it at the cut.
    """
    assert edge, "a query that finds nothing compares nothing"
    assert len(edge) == len(reference)
    assert [h.score for h in edge] == pytest.approx([h.score for h in reference], rel=1e-4, abs=TIE)
    scores = {h.chunk.chunk_id: h.score for h in reference}
    for hit in edge:
        expected = scores.get(hit.chunk.chunk_id, reference[-1].score)  # absent: tied at the cut, or wrong
        assert hit.score == pytest.approx(expected, rel=1e-4, abs=TIE), (hit.chunk.chunk_id, hit.score, expected)


@pytest.mark.parametrize("flt", FILTERS, ids=["any", "chi_dinh", "two_drugs_safe", "not_names"])
async def test_dense_sparse_and_hybrid_rank_alike(pair: Pair, index_embedder: CachingEmbedder,
                                                  sparse_encoder: SparseEncoder, flt: SearchFilter) -> None:
    for query in QUERIES:
        dense, sparse = index_embedder.embed_query(query), sparse_encoder.encode_query(query)
        _assert_same(await pair.edge.dense_search(dense, flt, limit=10),
                     await pair.reference.dense_search(dense, flt, limit=10))
        _assert_same(await pair.edge.sparse_search(sparse, flt, limit=10),
                     await pair.reference.sparse_search(sparse, flt, limit=10))
        edge = await pair.edge.hybrid_search(dense, sparse, flt, limit=8, candidates=30)
        reference = await pair.reference.hybrid_search(dense, sparse, flt, limit=8, candidates=30)
        # Fusion works on ranks: two candidates tied in one list may come in either order, which moves
        # their fused scores by 1/(k+r) - 1/(k+r+1); the fused set and its best hit are the same.
        assert {h.chunk.chunk_id for h in edge} == {h.chunk.chunk_id for h in reference}
        assert edge[0].chunk.chunk_id == reference[0].chunk.chunk_id


async def test_score_floors_cut_alike(pair: Pair, index_embedder: CachingEmbedder) -> None:
    dense = index_embedder.embed_query(QUERIES[0])
    full = await pair.reference.dense_search(dense, limit=20)
    middle = len(full) // 2
    floor = (full[middle].score + full[middle + 1].score) / 2  # between two hits, not on one
    edge = await pair.edge.dense_search(dense, limit=20, min_score=floor)
    _assert_same(edge, await pair.reference.dense_search(dense, limit=20, min_score=floor))
    assert 0 < len(edge) < len(full)


@pytest.mark.parametrize("phrase", ["đái tháo đường typ 2", "Dai thao duong", "suy thận nặng", "typ 2 đái tháo đường"])
async def test_phrase_and_word_matches_alike(pair: Pair, phrase: str) -> None:
    for match in ("phrase", "all_words"):
        edge = await pair.edge.text_match(phrase, match=match)  # type: ignore[arg-type]
        reference = await pair.reference.text_match(phrase, match=match)  # type: ignore[arg-type]
        assert [c.chunk_id for c in edge] == [c.chunk_id for c in reference]


async def test_sections_filters_ledger_and_manifest_alike(pair: Pair, index_corpus: IndexCorpus) -> None:
    for mono in index_corpus.monographs:
        for key in mono.sections:
            edge = await pair.edge.scroll_section(mono.drug_id, key)
            assert edge == await pair.reference.scroll_section(mono.drug_id, key)
    for flt in FILTERS:
        assert await pair.edge.scroll(flt) == await pair.reference.scroll(flt)
    live = await pair.edge.live_collection()
    assert live == await pair.reference.live_collection() == "duocthu__rel-contract"
    assert await pair.edge.ledger(live) == await pair.reference.ledger(live)
    assert await pair.edge.live_manifest() == await pair.reference.live_manifest()
    assert await pair.edge.count(live) == len(index_corpus.chunks)


async def test_the_live_pointer_survives_a_restart_and_the_directory_is_opened_once(tmp_path: Path,
                                                                                    index_corpus: IndexCorpus) -> None:
    settings = RetrievalSettings(var_dir=tmp_path)
    index = EdgeIndex.open(settings)
    try:
        with pytest.raises(IndexUnavailable, match="in use by another process"):
            EdgeIndex.open(settings)
        indexer = Indexer(index)
        for message in index_corpus.batches("rel-restart", batch_size=64):
            await indexer.apply(message)
        assert (tmp_path / "edge" / "LIVE").read_text() == "duocthu__rel-restart"
    finally:
        await index.close()
    reopened = EdgeIndex.open(settings)
    try:
        assert await reopened.live_collection() == "duocthu__rel-restart"
        assert len(await reopened.scroll_drug("warfarin")) > 3
        with pytest.raises(IndexUnavailable):
            await reopened.scroll(SearchFilter(), collection="duocthu__no-such-release")
    finally:
        await reopened.close()
