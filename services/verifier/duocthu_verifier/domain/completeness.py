"""Validating a completeness objection before acting on it (seed 000, Check 3).

An objection is itself a factual claim about the evidence, so it must be
grounded: its quote appears verbatim in the evidence, it shares at least half
of its non-meta words with the description, and every number of the
description is in the quote.  An objection already answered by a claim is
dropped.  Ungrounded objections are ignored rather than costing a repair.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.answer import Claim, MissingEvidence
from duocthu_contracts.evidence import Evidence
from duocthu_text.vietnamese import syllables
from duocthu_verifier.domain.numbers import numeric_tokens
from duocthu_verifier.domain.text import lowered

#: Words that describe the objection rather than the missing content.
META_WORDS = frozenset({
    "thiếu", "bỏ", "sót", "không", "nêu", "đề", "cập", "câu", "trả", "lời", "cần", "thông", "tin", "về", "của",
    "và", "các", "những", "là", "có", "cho", "trong", "được", "chưa", "mục", "phần", "nội", "dung", "bằng",
    "chứng", "missing", "the", "of", "and", "answer",
})


def content_words(text: str) -> set[str]:
    return {w for w in syllables(text) if w not in META_WORDS and not w.isdigit()}


def quote_supports(item: MissingEvidence, evidence: Sequence[Evidence]) -> bool:
    quote = lowered(item.evidence_quote)
    if not quote or not any(quote in lowered(e.text) for e in evidence):
        return False
    described = content_words(item.description)
    if described:
        overlap = len(described & content_words(item.evidence_quote)) / len(described)
        if overlap < 0.5:
            return False
    quote_numbers = set(numeric_tokens(item.evidence_quote))
    return all(n in quote_numbers for n in numeric_tokens(item.description))


def already_explicit(item: MissingEvidence, claims: Sequence[Claim]) -> bool:
    quote = lowered(item.evidence_quote)
    return any(quote in lowered(c.text) for c in claims)


def grounded_objections(
    missing: Sequence[MissingEvidence], evidence: Sequence[Evidence], claims: Sequence[Claim]
) -> list[MissingEvidence]:
    return [m for m in missing if quote_supports(m, evidence) and not already_explicit(m, claims)]
