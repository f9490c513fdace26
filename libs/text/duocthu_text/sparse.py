"""Lexical sparse vectors for Vietnamese, stored next to the dense vector (Qdrant ``Modifier.IDF``).

Vietnamese writes one syllable per space-separated token and words span
syllables ("đái tháo đường"), so the terms are syllables *and* syllable
bigrams: a bigram keeps "tháo đường" apart from "đường uống".  Diacritics
are kept ("liều" ≠ "liệu"), and every document also carries the folded,
diacritic-free form of each term so that a query typed without diacritics
("dai thao duong") still matches; a query uses the exact family when it has
any diacritic and the folded family when it has none, never both (no term is
counted twice).

Documents carry BM25 term weights (saturation ``k1``, length normalisation
``b`` against a fixed ``avg_len``); queries carry 1.0 per term and Qdrant
multiplies in the corpus IDF at query time.  Term ids are 31 bits of
BLAKE2b over the tagged term — stable across processes and machines
(Python's ``hash()`` is salted per process and would break the index) — and
the top bit marks the folded family, so the index can keep the two families
in two sparse vectors and a query scans only the one it uses.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from itertools import pairwise

from duocthu_contracts.corpus import SparseVector
from duocthu_text.vietnamese import fold, has_diacritics, syllables

EXACT_UNIGRAM = "w"
EXACT_BIGRAM = "b"
FOLDED_UNIGRAM = "fw"
FOLDED_BIGRAM = "fb"


#: Set on the ids of folded-family terms (``fw:``/``fb:``).
FOLDED_BIT = 1 << 31


def term_id(term: str) -> int:
    """Stable id of a tagged term: 31 hash bits, plus :data:`FOLDED_BIT` for folded terms (u32 in Qdrant)."""
    digest = int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "little")
    folded = term.startswith((f"{FOLDED_UNIGRAM}:", f"{FOLDED_BIGRAM}:"))
    return (digest & (FOLDED_BIT - 1)) | (FOLDED_BIT if folded else 0)


def is_folded(index: int) -> bool:
    return bool(index & FOLDED_BIT)


def _terms(tokens: list[str], unigram: str, bigram: str) -> Iterable[str]:
    for token in tokens:
        yield f"{unigram}:{token}"
    for left, right in pairwise(tokens):
        yield f"{bigram}:{left} {right}"


class SparseEncoder:
    """Deterministic Vietnamese syllable/bigram encoder; ``model_id`` names its exact recipe."""

    def __init__(self, *, k1: float = 1.2, b: float = 0.75, avg_len: float = 120.0) -> None:
        if k1 <= 0 or not 0 <= b <= 1 or avg_len <= 0:
            raise ValueError("BM25 needs k1 > 0, 0 <= b <= 1 and avg_len > 0")
        self.k1, self.b, self.avg_len = k1, b, avg_len
        self.model_id = f"vi-syllable-bigram-bm25/v2?k1={k1:g}&b={b:g}&avg_len={avg_len:g}"

    # ------------------------------------------------------------------ terms

    def document_terms(self, text: str) -> Counter[str]:
        exact = syllables(text)
        folded = [fold(token) for token in exact]
        counts: Counter[str] = Counter(_terms(exact, EXACT_UNIGRAM, EXACT_BIGRAM))
        counts.update(_terms(folded, FOLDED_UNIGRAM, FOLDED_BIGRAM))
        return counts

    def query_terms(self, text: str, *, folded: bool | None = None) -> list[str]:
        """Unique query terms; ``folded=None`` picks the folded family when the query has no diacritics."""
        use_folded = (not has_diacritics(text)) if folded is None else folded
        tokens = syllables(text)
        if use_folded:
            return list(dict.fromkeys(_terms([fold(t) for t in tokens], FOLDED_UNIGRAM, FOLDED_BIGRAM)))
        return list(dict.fromkeys(_terms(tokens, EXACT_UNIGRAM, EXACT_BIGRAM)))

    # ------------------------------------------------------------------ vectors

    def encode_document(self, text: str) -> SparseVector:
        counts = self.document_terms(text)
        length = len(syllables(text))
        norm = self.k1 * (1 - self.b + self.b * length / self.avg_len)
        weights: dict[int, float] = {}
        for term, tf in counts.items():
            index = term_id(term)
            weights[index] = weights.get(index, 0.0) + tf * (self.k1 + 1) / (tf + norm)
        return _vector(weights)

    def encode_documents(self, texts: Iterable[str]) -> list[SparseVector]:
        return [self.encode_document(text) for text in texts]

    def encode_query(self, text: str, *, folded: bool | None = None) -> SparseVector:
        weights: dict[int, float] = {}
        for term in self.query_terms(text, folded=folded):
            weights[term_id(term)] = 1.0
        return _vector(weights)


def _vector(weights: dict[int, float]) -> SparseVector:
    indices = sorted(weights)
    return SparseVector(indices=indices, values=[weights[i] for i in indices])
