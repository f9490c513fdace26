"""Numeric tokens, compared character for character.

Deliberately no parsing: ``1.500`` is 1500 under one reading and 1.5 under
another, and a normaliser that strips separators maps ``7,5`` and ``75`` to
the same key — a tenfold dose error scored as a match (seed 000, Check 1).
"""

from __future__ import annotations

import re

NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


def numeric_tokens(text: str) -> list[str]:
    return NUMBER_RE.findall(text)


def ungrounded(claim: str, evidence: str) -> list[str]:
    """Numbers of ``claim`` that are not a numeric token of ``evidence``, in order, without repeats."""
    available = set(numeric_tokens(evidence))
    missing: list[str] = []
    for token in numeric_tokens(claim):
        if token not in available and token not in missing:
            missing.append(token)
    return missing
