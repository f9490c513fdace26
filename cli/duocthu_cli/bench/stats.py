"""Order statistics for benchmark reports (nearest-rank percentiles: no interpolation to invent values)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary_ms(values: Sequence[float]) -> dict[str, float]:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "p99": percentile(values, 99),
            "n": float(len(values))}


def parse_server_timing(header: str) -> dict[str, float]:
    """``name;dur=1.5, other;dur=2`` -> ``{"name": 1.5, "other": 2.0}`` (entries without a duration are left out)."""
    out: dict[str, float] = {}
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "dur" and name:
                try:
                    out[name] = float(value)
                except ValueError:
                    continue
    return out
