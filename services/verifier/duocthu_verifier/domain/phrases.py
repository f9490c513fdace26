"""Phrase matching on token boundaries, with and without diacritics.

Diacritic folding merges words: "hoàn toàn" folds to "hoan toan", which
contains "an toan" — a substring search would let "hòa tan hoàn toàn" support
"an toàn" (issue 17).  A phrase therefore matches only as a whole sequence of
tokens.  A claim typed without diacritics is still caught by the folded form;
but where the claim prints the diacritics, the evidence must print the same
phrase with its diacritics to support it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from duocthu_text.vietnamese import fold
from duocthu_verifier.domain.text import lowered


def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_]){re.escape(phrase)}(?![^\W_])")


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
        return cls(lowered(text), fold(lowered(text)))

    def mentions(self, phrase: str) -> bool:
        """The phrase, typed with or without its diacritics, as whole tokens."""
        return has_phrase(self.marked, lowered(phrase)) or has_phrase(self.folded, fold(phrase))

    def supports(self, phrase: str, claim: Folded) -> bool:
        """Does this (evidence) text print the phrase the way ``claim`` uses it?

        With diacritics in the claim, the evidence must print them too; a claim
        without diacritics can only be compared folded.
        """
        if has_phrase(claim.marked, lowered(phrase)):
            return has_phrase(self.marked, lowered(phrase))
        return has_phrase(self.folded, fold(phrase))


def unsupported(claim: str, evidence: str, phrases: Iterable[str]) -> list[str]:
    """Phrases the claim uses that the evidence does not print."""
    c, e = Folded.of(claim), Folded.of(evidence)
    return [p for p in phrases if c.mentions(p) and not e.supports(p, c)]
