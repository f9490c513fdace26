"""Schemathesis over the published ``/openapi.json`` (issue 21), bounded so it stays well under a minute.

Generated requests (valid and invalid by the schema) go to a lone gateway on a
real socket; every response must be a documented status with a documented
content type and body, and never a 5xx other than a documented 503. The
monograph endpoints (they ask retrieval over NATS request/reply: without a
replica each valid-looking request would wait out the 5 s RPC timeout) are
explored against a gateway with a live retrieval stage on a seeded index.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.fixtures.gateway import LoneGateway
from tests.fixtures.stack import StackFactory

#: Examples per operation: ~10 operations × this stays within the CI budget.
MAX_EXAMPLES = 25
SLOW_WITHOUT_RETRIEVAL = {"/v1/rag/release", "/v1/rag/drugs", "/v1/rag/sections", "/v1/rag/section-text"}


def not_a_server_error(ctx: Any, response: Any, case: Any) -> bool:
    """5xx only when the operation documents it (503: a dependency is down)."""
    assert response.status_code < 500 or response.status_code == 503, (case.path, response.status_code)
    return True


def _operations(url: str) -> list[Any]:
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    results = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results  # the published schema is valid
    return [result.ok() for result in results if isinstance(result, Ok)]


def _explore_all(operations: list[Any], url: str) -> list[int]:
    """Every operation, valid and invalid generated requests, every response checked; the statuses seen."""
    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    sent: list[int] = []
    for operation in operations:
        for mode in GenerationMode:
            explore(operation, mode, url, checks, sent)
    print(f"schemathesis: {len(sent)} requests to {len(operations)} operations; statuses "
          f"{ {code: sent.count(code) for code in sorted(set(sent))} }")
    assert len(sent) >= 10 * len(operations)
    return sent


def test_generated_requests_get_only_documented_answers(lone_gateway: LoneGateway) -> None:
    operations = [op for op in _operations(lone_gateway.url) if op.path not in SLOW_WITHOUT_RETRIEVAL]
    assert len(operations) >= 8
    _explore_all(operations, lone_gateway.url)


@pytest.mark.e2e
def test_monograph_endpoints_with_retrieval_get_only_documented_answers(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway", "retrieval"), ready_path="/healthz")
    deadline = time.monotonic() + 60
    while httpx.get(f"{stack.url}/v1/rag/drugs", timeout=10).status_code != 200:  # retrieval's replica is live
        assert time.monotonic() < deadline, "retrieval never answered /v1/rag/drugs"
        time.sleep(0.3)
    operations = [op for op in _operations(stack.url) if op.path in SLOW_WITHOUT_RETRIEVAL]
    assert {op.path for op in operations} == SLOW_WITHOUT_RETRIEVAL
    sent = _explore_all(operations, stack.url)
    assert 200 in sent and 503 not in sent  # generated requests reached retrieval, which answered every one


def explore(operation: Any, mode: GenerationMode, url: str, checks: list[Any], sent: list[int]) -> None:
    """Up to ``MAX_EXAMPLES`` generated requests (valid or invalid by the schema) to one operation, each
    response checked; ``sent`` collects their statuses."""

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        case = data.draw(operation.as_strategy(mode))
        sent.append(case.call_and_validate(base_url=url, checks=checks, timeout=30).status_code)

    try:
        run()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE  # an operation without inputs has no invalid request
