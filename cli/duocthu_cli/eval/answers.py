"""Run the golden answer battery over HTTP against a running stack."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from duocthu_cli.eval.cases import Case
from duocthu_cli.eval.checker import check_response
from duocthu_runtime import JobProgress


@dataclass
class TurnResult:
    query: str
    decision: str | None
    reason: str | None
    failures: list[str]
    latency_ms: float
    trace_id: str | None


@dataclass
class CaseResult:
    case: Case
    turns: list[TurnResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(not t.failures for t in self.turns)


def run_case(client: httpx.Client, base_url: str, case: Case) -> CaseResult:
    conversation = f"eval-{case.id}-{uuid.uuid4().hex[:8]}"
    result = CaseResult(case)
    for turn in case.turns:
        started = time.perf_counter()
        try:
            response = client.post(f"{base_url}/v1/rag/query",
                                   json={"query": turn.query, "conversation_id": conversation})
            body: dict[str, Any] = response.json()
            failures = ([f"HTTP {response.status_code}"] if response.status_code != 200
                        else check_response(turn.expect, body))
        except (httpx.HTTPError, ValueError) as exc:
            body, failures = {}, [f"request failed: {exc}"]
        result.turns.append(TurnResult(turn.query, body.get("decision"), body.get("reason"), failures,
                                       (time.perf_counter() - started) * 1000, body.get("trace_id")))
    return result


def run_battery(base_url: str, cases: list[Case], timeout_s: float = 60.0) -> list[CaseResult]:
    with httpx.Client(timeout=timeout_s) as client, JobProgress("eval answers", len(cases), unit="cases") as progress:
        return [run_case(client, base_url, case) for case in progress.track(cases)]


def summarize(results: list[CaseResult], focus: list[CaseResult] | None = None) -> dict[str, Any]:
    """The golden battery's figures (and the focus battery's, reported on their own)."""
    report = _summary(results)
    if focus is not None:
        report["focus"] = _summary(focus)
    return report


def _summary(results: list[CaseResult]) -> dict[str, Any]:
    by_category: dict[str, Counter[str]] = {}
    for r in results:
        counter = by_category.setdefault(r.case.category, Counter())
        counter["cases"] += 1
        counter["passed"] += int(r.passed)
    golden = [r for r in results if not r.case.adversarial]
    adversarial = [r for r in results if r.case.adversarial]
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "golden": {"cases": len(golden), "passed": sum(r.passed for r in golden)},
        "adversarial": {"cases": len(adversarial), "passed": sum(r.passed for r in adversarial)},
        "by_category": {k: dict(v) for k, v in sorted(by_category.items())},
        "failures": [
            {"id": r.case.id, "category": r.case.category,
             "turns": [{"query": t.query, "decision": t.decision, "reason": t.reason, "failures": t.failures,
                        "trace_id": t.trace_id} for t in r.turns if t.failures]}
            for r in results if not r.passed
        ],
    }
