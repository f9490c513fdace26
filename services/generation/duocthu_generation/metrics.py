"""Prometheus metrics of the generation stage (bounded labels only)."""

from __future__ import annotations

from prometheus_client import Counter

DRAFTS = Counter("duocthu_generation_drafts_total", "Drafts and early endings by provider and outcome",
                 ["provider", "outcome"])
