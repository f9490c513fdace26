"""No new specific terms: a claim may reword its evidence, but not bring in what the evidence does not name.

"… được dùng để điều trị ung thư [1]" citing a real indication block has the
right drug, citation and numbers, and a fabricated indication; a judge that
says yes to everything lets it through.  Rewording uses common words
("mỗi", "khi", "cần", "dùng"); a fabricated fact needs a *specific* word — a
disease, organism, drug, organ.  Specificity is not a hand list: it is read
from the live release itself as document frequency over its chunks (a word
printed in few chunks is specific to what those chunks say, like a high
IDF).  A claim term that is specific and absent from every cited block (its
text, its drug name, section title and carried labels) rejects the claim
before any judge is consulted.

Terms are lower-cased syllables with their diacritics (Vietnamese is written
one syllable per token; folding would merge "tim" with "tìm").  Adjacent
syllable pairs were tried and dropped: measured on the sample release, the
pairs that rewording creates ("mỗi lần", "uống thuốc", "cần dùng") are as rare
as real compound terms, while a compound made only of common syllables
("suy tim", "viêm gan") is common in a formulary anyway — so a pair added
false rejections and caught nothing a syllable did not.  Such a compound is
left to the judge.  Tokens holding digits are quantities, checked elsewhere.

The limit is a share of the release's chunks.  A small release (the
42-monograph sample) prints some function words rarely ("cũng", "thì",
"những"), and a claim that adds one is rejected there: the cost of a
fail-closed reading, measured by ``duocthu eval verifier``.

Without statistics (no live release seen yet) every new term counts as
specific: the strictest reading, and the same one an audit re-runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from duocthu_verifier.domain.text import lowered

#: A term printed in at most this share of the release's chunks is specific …
SPECIFIC_SHARE = 0.02
#: … and always when printed in at most this many chunks (a small release).
SPECIFIC_MIN_DOCUMENTS = 3

_CLAUSE_RE = re.compile(r"[^\w\s]+|_")
_TOKEN_RE = re.compile(r"[^\W_]+")


def clauses(text: str) -> list[list[str]]:
    """Lower-cased word tokens of each clause (split at punctuation); tokens with digits dropped."""
    out: list[list[str]] = []
    for clause in _CLAUSE_RE.split(lowered(text)):
        words = [w for w in _TOKEN_RE.findall(clause) if not any(ch.isdigit() for ch in w)]
        if words:
            out.append(words)
    return out


def terms(text: str) -> set[str]:
    """The syllables of ``text`` (lower-cased, diacritics kept, no digits)."""
    return {w for words in clauses(text) for w in words}


@dataclass(frozen=True)
class TermStatistics:
    """Document frequency of every term over one release's chunks."""

    release_id: str | None
    documents: int
    frequency: Mapping[str, int] = field(default_factory=dict)
    sha256: str = ""

    def df(self, term: str) -> int:
        return self.frequency.get(term, 0)

    def specific_limit(self) -> int:
        return max(SPECIFIC_MIN_DOCUMENTS, int(SPECIFIC_SHARE * self.documents))


def statistics_sha256(release_id: str | None, documents: int, frequency: Mapping[str, int]) -> str:
    body = json.dumps([release_id, documents, sorted(frequency.items())], ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def build_statistics(release_id: str | None, texts: Iterable[str]) -> TermStatistics:
    """Count, for every term, the chunks that print it."""
    counts: dict[str, int] = {}
    documents = 0
    for text in texts:
        documents += 1
        for term in terms(text):
            counts[term] = counts.get(term, 0) + 1
    return TermStatistics(release_id, documents, counts, statistics_sha256(release_id, documents, counts))


@dataclass(frozen=True)
class TermFinding:
    """The specific terms a claim brings in, and the frequencies consulted to decide it."""

    specific: tuple[str, ...]
    consulted: dict[str, int]


def new_specific_terms(claim: str, evidence_terms: set[str], stats: TermStatistics | None) -> TermFinding:
    """Terms of ``claim`` that no cited block prints and that are specific in the release."""
    consulted: dict[str, int] = {}
    specific: list[str] = []
    for term in sorted(terms(claim) - evidence_terms):
        df = stats.df(term) if stats is not None else 0
        consulted[term] = df
        if stats is None or df <= stats.specific_limit():
            specific.append(term)
    return TermFinding(tuple(specific), consulted)
