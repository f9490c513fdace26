"""Phrase matching on token boundaries, with and without diacritics.

Diacritic folding merges words: "hoàn toàn" folds to "hoan toan", which
contains "an toan" — a substring search would let "hòa tan hoàn toàn" support
"an toàn" (issue 17).  A phrase therefore matches only as a whole sequence of
tokens.  A claim typed without diacritics is still caught by the folded form;
but where the claim prints the diacritics, the evidence must print the same
phrase with its diacritics to support it.

The phrases are a closed set (ranking, safety and population words), so each
one's two patterns are built once per process; only the texts are read per
turn.  Folding is the costly step (issue 20: most of the verifier's CPU went
into folding whole cited blocks), so :func:`unsupported` folds the evidence
only when the claim uses one of the phrases at all.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from duocthu_text.vietnamese import fold
from duocthu_verifier.domain.text import lowered


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    """The phrase as whole tokens (cached: the same few dozen phrases are looked up for every claim)."""
    return re.compile(rf"(?<![^\W_]){re.escape(phrase)}(?![^\W_])")


@functools.lru_cache(maxsize=4096)
def _forms(phrase: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The patterns of the phrase lower-cased with its diacritics, and folded without them."""
    return _pattern(lowered(phrase)), _pattern(fold(phrase))


def has_phrase(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole tokens (both already lower-cased the same way)."""
    return bool(_pattern(phrase).search(text))


@dataclass(frozen=True)
class Folded:
    """A text lower-cased with diacritics, and folded without them."""

    marked: str
    folded: str

    @classmethod
    def of(cls, text: str) -> Folded:
        marked = lowered(text)
        return cls(marked, fold(marked))

    def mentions(self, phrase: str) -> bool:
        """The phrase, typed with or without its diacritics, as whole tokens."""
        marked, folded = _forms(phrase)
        return bool(marked.search(self.marked)) or bool(folded.search(self.folded))

    def supports(self, phrase: str, claim: Folded) -> bool:
        """Does this (evidence) text print the phrase the way ``claim`` uses it?

        With diacritics in the claim, the evidence must print them too; a claim
        without diacritics can only be compared folded.
        """
        marked, folded = _forms(phrase)
        if marked.search(claim.marked):
            return bool(marked.search(self.marked))
        return bool(folded.search(self.folded))


@functools.lru_cache(maxsize=256)
def _any_of(phrases: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """One pattern per form matching wherever any one phrase's own pattern would (an alternation backtracks
    into the next phrase when one fails its token boundary), so a claim that uses none is read once per form."""
    marked = "|".join(re.escape(lowered(p)) for p in phrases)
    folded = "|".join(re.escape(fold(p)) for p in phrases)
    return (re.compile(rf"(?<![^\W_])(?:{marked})(?![^\W_])"), re.compile(rf"(?<![^\W_])(?:{folded})(?![^\W_])"))


def unsupported(claim: str, evidence: str, phrases: Iterable[str]) -> list[str]:
    """Phrases the claim uses that the evidence does not print (the evidence is read only if the claim uses one)."""
    c = Folded.of(claim)
    wanted = tuple(phrases)
    if not wanted:
        return []
    marked, folded = _any_of(wanted)
    if not marked.search(c.marked) and not folded.search(c.folded):
        return []
    used = [p for p in wanted if c.mentions(p)]
    if not used:
        return []
    e = Folded.of(evidence)
    return [p for p in used if not e.supports(p, c)]
