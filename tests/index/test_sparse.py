"""The Vietnamese sparse encoder: stable ids, diacritics kept, folded queries, BM25 weights."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from duocthu_text.sparse import SparseEncoder, is_folded, term_id

DOC = "Đái tháo đường typ 2 ở người lớn; liều dùng 500 mg mỗi ngày."


def test_term_ids_are_stable_across_processes_and_hash_seeds() -> None:
    code = ("import json,sys;from duocthu_text.sparse import SparseEncoder;"
            "v=SparseEncoder().encode_document(sys.argv[1]);print(json.dumps([v.indices,v.values]))")
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, DOC], env=env, capture_output=True, text=True, check=True)
        outputs.add(out.stdout.strip())
    assert len(outputs) == 1
    here = SparseEncoder().encode_document(DOC)
    assert json.loads(outputs.pop()) == [here.indices, here.values]


def test_known_term_id_never_changes() -> None:
    # Pinned: changing the hashing silently breaks every stored index.
    assert term_id("w:đường") == term_id("w:đường")
    assert term_id("w:đường") != term_id("w:duong")
    assert 0 <= term_id("b:tháo đường") < 2**31
    assert 2**31 <= term_id("fb:thao duong") < 2**32  # the folded family is marked by the top bit


def test_document_terms_keep_diacritics_and_add_folded_forms() -> None:
    terms = SparseEncoder().document_terms(DOC)
    assert terms["w:đường"] == 1 and terms["w:liều"] == 1
    assert terms["b:tháo đường"] == 1 and terms["b:đái tháo"] == 1
    assert terms["fw:duong"] == 1 and terms["fb:dai thao"] == 1
    assert "w:lieu" not in terms  # the exact family keeps diacritics


def test_diacritics_distinguish_words() -> None:
    enc = SparseEncoder()
    assert set(enc.encode_query("liều").indices).isdisjoint(enc.encode_query("liệu").indices)


def test_query_family_follows_diacritics() -> None:
    enc = SparseEncoder()
    accented = enc.query_terms("đái tháo đường")
    plain = enc.query_terms("dai thao duong")
    assert accented == ["w:đái", "w:tháo", "w:đường", "b:đái tháo", "b:tháo đường"]
    assert plain == ["fw:dai", "fw:thao", "fw:duong", "fb:dai thao", "fb:thao duong"]
    doc = set(enc.encode_document(DOC).indices)
    assert set(enc.encode_query("đái tháo đường").indices) <= doc
    assert set(enc.encode_query("dai thao duong").indices) <= doc
    assert enc.query_terms("Đái Tháo Đường") == accented  # case-insensitive, NFC
    assert not any(is_folded(i) for i in enc.encode_query("đái tháo đường").indices)
    assert all(is_folded(i) for i in enc.encode_query("dai thao duong").indices)


def test_query_values_are_unit_and_unique() -> None:
    vector = SparseEncoder().encode_query("metformin metformin metformin")
    assert vector.indices == sorted(set(vector.indices))
    assert vector.values == [1.0] * len(vector.indices)


def test_bm25_weights_saturate_and_normalise_length() -> None:
    enc = SparseEncoder()
    idx = term_id("w:metformin")

    def weight(text: str) -> float:
        vector = enc.encode_document(text)
        return vector.values[vector.indices.index(idx)]

    once, thrice = weight("metformin uống"), weight("metformin metformin metformin uống")
    assert once < thrice < once * 3  # saturation
    short, long_ = weight("metformin " + "x " * 5), weight("metformin " + "x " * 400)
    assert long_ < short  # length normalisation
    assert enc.model_id.startswith("vi-syllable-bigram-bm25/v2")


def test_empty_text_gives_an_empty_vector() -> None:
    assert SparseEncoder().encode_query("  ,. ").indices == []


@pytest.mark.parametrize(("k1", "b", "avg"), [(0, 0.75, 100), (1.2, 1.5, 100), (1.2, 0.75, 0)])
def test_invalid_bm25_parameters_are_refused(k1: float, b: float, avg: float) -> None:
    with pytest.raises(ValueError, match="BM25"):
        SparseEncoder(k1=k1, b=b, avg_len=avg)
