"""Two gateway processes on one NATS whose store is down: one shared rate limit, answers still returned.

Both replicas count the same client in NATS KV, so the limit holds whichever
replica a request lands on.  The store (SQLite in a directory that does not
exist) fails every read and write: turns are still answered, the failures are
counted, and the history endpoint says why it failed, with a trace id.
"""

from __future__ import annotations

import time

import httpx
import pytest

from duocthu_runtime.devstack import free_port
from tests.fixtures.gateway import fresh_rate_window, metric_value
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e


def wait_healthy(url: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} not healthy after {timeout_s}s")


def test_shared_limit_across_replicas_and_store_fail_open(stack_factory: StackFactory) -> None:
    broken_store = "sqlite+aiosqlite:////nonexistent-duocthu-dir/gateway.db"
    stack = stack_factory(services=("gateway", "understanding"), seed_index=False, ready_path="/healthz",
                          env={"RATE_LIMIT_PER_MINUTE": "4", "DATABASE_URL": broken_store})
    second = stack.add_child("gateway", 1)
    second_port = free_port()
    second.env["HTTP_PORT"] = str(second_port)
    second.start()
    urls = [stack.url, f"http://127.0.0.1:{second_port}"]
    wait_healthy(urls[1])

    fresh_rate_window()
    with httpx.Client(timeout=60) as client:
        answers = [client.post(f"{urls[i % 2]}/v1/rag/query",
                               json={"query": "Chống chỉ định của metformin?", "conversation_id": "c-down"})
                   for i in range(4)]
        # answered although the store can neither give history nor keep the turn
        assert [a.status_code for a in answers] == [200] * 4, [a.text for a in answers]
        assert all(a.json()["decision"] and a.json()["trace_id"] for a in answers)
        for url in urls:  # the fifth and sixth requests, one on each replica
            refused = client.post(f"{url}/v1/rag/query", json={"query": "Xin chào"},
                                  headers={"X-Correlation-ID": "client-req-42"})
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"] == "rate_limited" and refused.json()["trace_id"] == "client-req-42"
            assert refused.headers["X-Trace-ID"] == "client-req-42"

        for url in urls:
            exposition = client.get(f"{url}/metrics").text  # records are written (or fail) before the answer
            assert metric_value(exposition, "duocthu_gateway_trace_write_failures_total") == 2
            assert metric_value(exposition, "duocthu_gateway_history_read_failures_total") == 2
            assert metric_value(exposition, "duocthu_gateway_rate_limited_total") == 1

        history = client.get(f"{urls[0]}/v1/rag/history", params={"conversation_id": "c-down"})
        assert history.status_code == 503
        body = history.json()
        assert body["error"] == "store_unavailable" and "OperationalError" in body["detail"]
        assert body["trace_id"] and history.headers["X-Trace-ID"] == body["trace_id"]
        invalid = client.get(f"{urls[1]}/v1/rag/history", params={"conversation_id": "bad id!"})
        assert invalid.status_code == 422 and invalid.json()["error"] == "invalid_request"
        assert invalid.json()["trace_id"]
