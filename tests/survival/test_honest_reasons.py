"""A turn that cannot run says why, at once: the bus is down, or a named stage has no live replica."""

from __future__ import annotations

import time

import httpx
import pytest

from duocthu_contracts.http import DISCLAIMER
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e


def test_missing_stage_and_dead_bus_are_named_not_reported_as_the_budget(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway",), ready_path="/healthz", env={"TURN_DEADLINE_S": "20"})
    started = time.monotonic()
    response = httpx.post(f"{stack.url}/v1/rag/query", json={"query": "Liều paracetamol?"}, timeout=30)
    assert response.status_code == 200
    data = response.json()
    assert (data["decision"], data["reason"]) == ("abstain", "stage_unavailable")
    assert "(understanding)" in data["reason_message"] and "không có tiến trình nào" in data["reason_message"]
    assert data["disclaimer"] == DISCLAIMER
    assert time.monotonic() - started < 3, "told at once, not after the 20 s deadline"

    assert stack.nats is not None
    stack.nats.kill()
    started = time.monotonic()
    response = httpx.post(f"{stack.url}/v1/rag/query", json={"query": "Liều paracetamol?"}, timeout=30)
    assert response.status_code == 200
    data = response.json()
    assert (data["decision"], data["reason"]) == ("abstain", "bus_unavailable")
    assert "truyền tin nội bộ" in data["reason_message"]
    assert time.monotonic() - started < 8, "told within seconds, not after the 20 s deadline"


def test_a_missing_ingest_worker_is_named_by_readyz_but_refuses_no_question(stack_factory: StackFactory) -> None:
    """The ingest worker is not on a question's path: its absence fails /readyz (an operator must see it) but must
    not turn questions away as ``stage_unavailable`` (the fault-injection run saw every question refused while it
    restarted)."""
    stack = stack_factory(services=("understanding", "retrieval", "generation", "verifier", "gateway"),
                          ready_path="/healthz")
    checks: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        response = httpx.get(f"{stack.url}/readyz", timeout=5)
        checks = response.json()["checks"]
        if all(checks.get(f"stage:{stage}", "0 ready") != "0 ready"
               for stage in ("understanding", "retrieval", "generation", "verifier")):
            break
        time.sleep(0.3)
    assert response.status_code == 503 and checks["unavailable"] == "ingest-worker", checks
    answer = httpx.post(f"{stack.url}/v1/rag/query", json={"query": "Chống chỉ định của metformin?"}, timeout=60)
    assert answer.status_code == 200
    assert answer.json()["decision"] == "answerable", answer.text
