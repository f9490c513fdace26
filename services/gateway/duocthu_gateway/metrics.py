"""Gateway metrics (bounded labels only)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

REQUEST_LATENCY = Histogram(
    "duocthu_gateway_request_seconds",
    "End-to-end latency of POST /v1/rag/query",
    ["decision"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60),
)
RESPONSES = Counter(
    "duocthu_gateway_responses_total", "Responses by decision and reason", ["decision", "reason"]
)
TRACE_WRITE_FAILURES = Counter(
    "duocthu_gateway_trace_write_failures_total", "Turns answered whose trace/history row could not be written"
)
HISTORY_READ_FAILURES = Counter(
    "duocthu_gateway_history_read_failures_total", "Turns sent without history because the store could not be read"
)
RATE_LIMITED = Counter("duocthu_gateway_rate_limited_total", "Query requests refused by the per-client rate limit")
ANSWERED_FROM_RECORD = Counter(
    "duocthu_gateway_answered_from_record_total",
    "Questions asked again under their X-Correlation-ID and answered from the recorded response (no new turn)",
)
COMPLETIONS_REFUSED = Counter(
    "duocthu_gateway_completions_refused_total",
    "Turn ends the gate refused to show (not the verifier's sealed subject, or a seal that does not verify); "
    "each is a security event in the log",
    ["reason"],
)
