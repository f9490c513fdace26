"""Gateway HTTP contract: input validation, deadline, correlation headers."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from duocthu_cli.stack.supervisor import Stack
from duocthu_contracts.http import DISCLAIMER
from duocthu_runtime import Bus, RuntimeSettings
from tests.fixtures.stack import StackFactory


async def _audit_count(settings: RuntimeSettings) -> int:
    bus = Bus(settings, client_name="audit-counter")
    await bus.connect()
    info = await bus.js.stream_info("RAG_AUDIT")
    await bus.stop()
    return int(info.state.messages)


@pytest.fixture
def gateway_only(stack_factory: StackFactory) -> Stack:
    return stack_factory(services=("gateway",), ready_path="/healthz", env={"TURN_DEADLINE_S": "1.5"})


@pytest.mark.parametrize(
    ("body", "content_type", "field"),
    [
        ('{"query": ""}', "application/json", "query"),
        ('{"query": "   \\n "}', "application/json", "query"),
        ('{"query": "' + "a" * 4001 + '"}', "application/json", "query"),
        ('{"query": "liều paracetamol", "conversation_id": "bad id!"}', "application/json", "conversation_id"),
        ('{"query": "liều paracetamol", "conversation_id": "' + "a" * 129 + '"}', "application/json",
         "conversation_id"),
        ('{"query": "x", "response_mode": "poem"}', "application/json", "response_mode"),
        ("query=liều", "application/x-www-form-urlencoded", None),
        ("{not json", "application/json", None),
        ("", "application/json", None),
    ],
)
def test_invalid_input_is_422_and_nothing_is_published(gateway_only: Stack, body: str, content_type: str,
                                                       field: str | None) -> None:
    before = asyncio.run(_audit_count(gateway_only.ops_settings()))
    response = httpx.post(f"{gateway_only.url}/v1/rag/query", content=body.encode(),
                          headers={"content-type": content_type}, timeout=10)
    assert response.status_code == 422
    data = response.json()
    assert data["error"] == "invalid_request"
    assert data["disclaimer"] == DISCLAIMER
    assert data["detail"], "the error names the problem"
    if field:
        assert any(field in d["loc"] for d in data["detail"])
    assert asyncio.run(_audit_count(gateway_only.ops_settings())) == before


def test_a_4000_char_query_is_accepted(gateway_only: Stack) -> None:
    response = httpx.post(f"{gateway_only.url}/v1/rag/query", json={"query": "a" * 4000}, timeout=10)
    assert response.status_code == 200


def test_deadline_expiry_abstains_within_deadline_plus_one_second(stack_factory: StackFactory) -> None:
    # No stage is required, so nothing blocks the turn up front: it is sent and nobody completes it.
    silent = stack_factory(services=("gateway",), ready_path="/healthz",
                           env={"TURN_DEADLINE_S": "1.5", "REQUIRED_STAGES": "[]"})
    started = time.monotonic()
    response = httpx.post(f"{silent.url}/v1/rag/query", json={"query": "Liều paracetamol?"}, timeout=10,
                          headers={"X-Correlation-ID": "corr-deadline-1"})
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    data = response.json()
    assert (data["decision"], data["reason"]) == ("abstain", "request_budget_exhausted")
    assert data["disclaimer"] == DISCLAIMER
    assert data["correlation_id"] == "corr-deadline-1"
    assert response.headers["X-Trace-ID"] == data["trace_id"]
    assert 1.5 <= elapsed <= 2.5


def test_readiness_reports_missing_stages(gateway_only: Stack) -> None:
    assert httpx.get(f"{gateway_only.url}/healthz", timeout=5).status_code == 200
    response = httpx.get(f"{gateway_only.url}/readyz", timeout=5)
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["bus"] == "connected"
    assert checks["stage:understanding"] == "0 ready"
