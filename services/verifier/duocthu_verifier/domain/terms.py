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

The limit is a share of the release's chunks.  Rarity alone is not enough:
the book's terse style prints everyday words rarely — in the 42-monograph
sample "thì", "vậy", "những" are as rare as "ung" (of "ung thư") or
"herpes" — so a word is specific only when it is also *not an everyday
word of Vietnamese*: rare in the release and rare in general language, the
classic contrastive reading of termhood.  General-language frequency comes
from a package (``wordfreq``'s Vietnamese list, on the Zipf scale), injected
as a :data:`Background` so this module stays pure; it only ever *exempts*
words from being specific, the release decides what is rare.  A compound of
everyday syllables ("động kinh", "suy tim") is therefore not caught here and
stays the judge's to refuse.

Without statistics (no live release seen yet) every new term counts as
specific: the strictest reading, and the same one an audit re-runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from duocthu_contracts.answer import CheckRecord
from duocthu_verifier.domain.text import lowered

#: A term printed in at most this share of the release's chunks is specific …
SPECIFIC_SHARE = 0.02
#: … and always when printed in at most this many chunks (a small release).
SPECIFIC_MIN_DOCUMENTS = 3
#: A word at least this frequent in general Vietnamese (Zipf 5: 100 per million words) is an everyday word.
EVERYDAY_ZIPF = 5.0

#: General-language frequency of a word on the Zipf scale (0: unknown).
Background = Callable[[str], float]

_CLAUSE_RE = re.compile(r"[^\w\s]+|_")
_TOKEN_RE = re.compile(r"[^\W_]+")


def clauses(text: str) -> list[list[str]]:
    """Lower-cased word tokens of each clause (split at punctuation); tokens with digits dropped."""
    out: list[list[str]] = []
    for clause in _CLAUSE_RE.split(lowered(text)):
        # a word of letters only has no digit: str.isalpha answers most words without a per-character loop
        words = [w for w in _TOKEN_RE.findall(clause) if w.isalpha() or not any(ch.isdigit() for ch in w)]
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


class TermCounter:
    """Document frequencies accumulated chunk by chunk; a chunk seen twice (a redelivery) counts once."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.chunk_ids: set[str] = set()

    @property
    def documents(self) -> int:
        return len(self.chunk_ids)

    def add(self, chunk_id: str, text: str) -> None:
        if chunk_id in self.chunk_ids:
            return
        self.chunk_ids.add(chunk_id)
        for term in terms(text):
            self.counts[term] = self.counts.get(term, 0) + 1

    def finish(self, release_id: str | None) -> TermStatistics:
        counts = dict(self.counts)
        return TermStatistics(release_id, self.documents, counts,
                              statistics_sha256(release_id, self.documents, counts))


def build_statistics(release_id: str | None, texts: Iterable[str]) -> TermStatistics:
    """Count, for every term, the texts (chunks) that print it."""
    counter = TermCounter()
    for n, text in enumerate(texts):
        counter.add(str(n), text)
    return counter.finish(release_id)


@dataclass(frozen=True)
class TermContext:
    """What the specific-term check consults: the live release's statistics and everyday-word frequencies.

    Both may be absent (no release counted yet; no background list): the
    check then reads every new term as specific — fail closed.
    """

    statistics: TermStatistics | None = None
    background: Background | None = None
    background_id: str = ""


@dataclass(frozen=True)
class TermFinding:
    """The specific terms a claim brings in, and the frequencies consulted to decide it."""

    specific: tuple[str, ...]
    consulted: dict[str, int]
    everyday: dict[str, float]


def new_specific_terms(claim: str, evidence_terms: set[str], stats: TermStatistics | None,
                       background: Background | None = None) -> TermFinding:
    """Terms of ``claim`` that no cited block prints, rare in the release and not everyday words."""
    consulted: dict[str, int] = {}
    everyday: dict[str, float] = {}
    specific: list[str] = []
    for term in sorted(terms(claim) - evidence_terms):
        df = stats.df(term) if stats is not None else 0
        consulted[term] = df
        zipf = round(background(term), 2) if background is not None else 0.0
        everyday[term] = zipf
        if zipf >= EVERYDAY_ZIPF:
            continue
        if stats is None or df <= stats.specific_limit():
            specific.append(term)
    return TermFinding(tuple(specific), consulted, everyday)


def recorded_statistics(records: Sequence[CheckRecord]) -> TermStatistics | None:
    """The statistics a recorded verdict consulted, rebuilt from its check records (for ``audit reverify``).

    Only the looked-up terms are known; a term the re-run looks up that the
    record does not hold (the claim or its evidence was altered) reads as
    absent from the release — and the changed inputs hash reports it.
    """
    bases = [r.term_basis for r in records if r.term_basis is not None]
    if not bases or bases[0].release_id is None:
        return None
    first = bases[0]
    frequency: dict[str, int] = {}
    for basis in bases:
        frequency.update(basis.document_frequency)
    return TermStatistics(first.release_id, first.documents, frequency, first.statistics_sha256)
