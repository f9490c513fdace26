"""Packing ranked chunks into a token budget (route B: 6,000 cl100k tokens, seed 003 §13.2).

Counts come from the chunk's own ``est_tokens`` (cl100k_base, computed once
at ingest), so a query never tokenizes.  A chunk is taken whole or not at
all: a cut chunk could lose the label its numbers belong to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from duocthu_contracts.corpus import ChunkRecord

ROUTE_B_BUDGET = 6_000

T = TypeVar("T")


def pack(ranked: Sequence[tuple[ChunkRecord, T]], budget: int = ROUTE_B_BUDGET) -> list[tuple[ChunkRecord, T]]:
    """The ranked chunks, in rank order, that fit in ``budget`` tokens (at least the first, if any)."""
    out: list[tuple[ChunkRecord, T]] = []
    used = 0
    for chunk, extra in ranked:
        cost = max(chunk.est_tokens, 1)
        if out and used + cost > budget:
            continue
        out.append((chunk, extra))
        used += cost
    return out
