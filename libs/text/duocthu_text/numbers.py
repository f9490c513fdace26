"""Numbers as the book and its readers type them.

Two uses, deliberately kept apart: a *token* is a number exactly as written
(``7,5`` and ``75`` are different tokens; grounding compares tokens character
for character and never parses them), while :func:`decimal` reads a value a
user typed with a decimal comma ("2,5 tuổi") for arithmetic on ages and
weights.
"""

from __future__ import annotations

import re

NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


def numeric_tokens(text: str) -> list[str]:
    """Every number of ``text`` as written, in order (``1.500``, ``7,5``, ``40``)."""
    return NUMBER_RE.findall(text)


def decimal(text: str) -> float:
    """The value of a number typed with a decimal comma or point ("2,5" and "2.5" are 2.5)."""
    return float(text.replace(",", "."))
