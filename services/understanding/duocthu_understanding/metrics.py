"""Prometheus metrics of the understanding stage (bounded labels only)."""

from __future__ import annotations

from prometheus_client import Counter

FRAMES = Counter("duocthu_understanding_frames_total", "Questions by turn type and outcome",
                 ["turn_type", "outcome"])
