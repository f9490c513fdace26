"""Prometheus metrics common to every stage.

Labels are bounded sets (stage, schema, decision, reason, outcome): no query
text, ids or drug names ever become a label value.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

STAGE_MESSAGES = Counter(
    "duocthu_stage_messages_total",
    "Messages handled by a stage, by outcome",
    ["stage", "schema", "outcome"],
)
STAGE_LATENCY = Histogram(
    "duocthu_stage_latency_seconds",
    "Time a stage spends on one message",
    ["stage"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
BUS_REJECTED = Counter(
    "duocthu_bus_rejected_messages_total",
    "Messages a consumer refused to decode (unknown major version, invalid payload)",
    ["stage", "reason"],
)
TURN_DECISIONS = Counter(
    "duocthu_turn_decisions_total",
    "Turns completed by a stage, by decision and reason",
    ["stage", "decision", "reason"],
)
PUBLISH_DUPLICATES = Counter(
    "duocthu_bus_duplicate_publishes_total",
    "Publishes JetStream dropped as duplicates (a redelivered stage re-published)",
    ["stage"],
)
