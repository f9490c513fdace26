"""Verifier metrics (bounded labels)."""

from __future__ import annotations

from prometheus_client import Counter

VERDICTS = Counter("duocthu_verifier_verdicts_total", "Verdicts by outcome and reason", ["outcome", "reason"])
