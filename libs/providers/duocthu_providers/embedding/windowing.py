"""Explicit windowing of inputs longer than a model's token window.

A provider that silently truncates or windows a long input hides a loss: the
end of an interaction list would simply not be searchable.  Here windowing is
a visible, deterministic step: the text is cut at word boundaries into the
fewest windows that each fit the model (checked with the model's own token
counter), every window is embedded as a complete input, and the vectors are
combined by a token-weighted mean, re-normalised.  The caller records that it
happened (log + metric); with ``EMBEDDING_LONG_INPUT=reject`` it refuses instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

TokenCounter = Callable[[str], int]


def _largest_fit(units: Sequence[str], start: int, sep: str, count: TokenCounter, limit: int) -> int:
    """Largest ``end`` such that ``sep.join(units[start:end])`` fits; ``start`` if not even one unit fits."""
    lo, hi = start, len(units)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(sep.join(units[start:mid])) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return lo


def plan_windows(text: str, count: TokenCounter, limit: int) -> list[str]:
    """Cut ``text`` into windows whose token count (as measured by ``count``) is at most ``limit``.

    Windows break between whitespace-separated words; a single word longer
    than the window (never seen in prose) is cut between characters.  The
    windows together hold every word of ``text`` in order.
    """
    if count(text) <= limit:
        return [text]
    words = text.split()
    windows: list[str] = []
    start = 0
    while start < len(words):
        end = _largest_fit(words, start, " ", count, limit)
        if end > start:
            windows.append(" ".join(words[start:end]))
            start = end
            continue
        word = words[start]
        pos = 0
        while pos < len(word):
            cut = _largest_fit(word, pos, "", count, limit)
            if cut == pos:
                raise ValueError(f"a single character does not fit a {limit}-token window")
            windows.append(word[pos:cut])
            pos = cut
        start += 1
    return windows


def combine(vectors: Sequence[Sequence[float]], weights: Sequence[float]) -> list[float]:
    """Weighted mean of window vectors, L2-normalised (cosine space)."""
    if not vectors or len(vectors) != len(weights):
        raise ValueError("combine needs one weight per window vector")
    dims = len(vectors[0])
    total = [0.0] * dims
    for vector, weight in zip(vectors, weights, strict=True):
        for i, value in enumerate(vector):
            total[i] += weight * value
    norm = math.sqrt(sum(v * v for v in total))
    if norm == 0.0:
        raise ValueError("window vectors cancel out")
    return [v / norm for v in total]
