"""``duocthu up``'s supervision, with real processes and kill -9: stages, replicas and NATS itself."""

from __future__ import annotations

import signal
import time

import httpx
import pytest

from duocthu_cli.stack.supervisor import Backoff, Stack
from tests.fixtures.gateway import fresh_rate_window
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e

QUESTION = {"query": "Chống chỉ định của metformin?"}


def _fast_backoff() -> Backoff:
    return Backoff(first_s=0.2, max_s=2.0, stable_after_s=5.0)


def _wait_readyz(stack: Stack, want: int, timeout_s: float,
                 naming: str | None = None) -> tuple[float, dict[str, object]]:
    """Seconds until /readyz answers ``want`` (and, given ``naming``, names exactly that stage unavailable), and
    its body."""
    t0 = time.monotonic()
    body: dict[str, object] = {}
    while time.monotonic() - t0 < timeout_s:
        try:
            response = httpx.get(f"{stack.url}/readyz", timeout=3)
            body = response.json()
            checks = body.get("checks")
            named = naming is None or (isinstance(checks, dict) and checks.get("unavailable") == naming)
            if response.status_code == want and named:
                return time.monotonic() - t0, body
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"/readyz did not answer {want} within {timeout_s}s: {body}")


def test_dead_stage_is_named_by_readyz_then_restarted_with_logged_backoff(stack_factory: StackFactory) -> None:
    stack = stack_factory(replicas={"generation": 2})
    lines: list[str] = []
    stack.log = lines.append
    stack.backoff_factory = _fast_backoff
    for replica in (0, 1):
        stack.find("generation", replica).kill(signal.SIGKILL)
    # presence entries of killed replicas expire (once, under a loaded full run, one /readyz read found no
    # stage at all: the dead one must come to be named alone)
    _, body = _wait_readyz(stack, 503, timeout_s=25, naming="generation")
    checks = body["checks"]
    assert isinstance(checks, dict)
    assert checks["unavailable"] == "generation" and checks["stage:generation"] == "0 ready"

    stack.supervise_in_background()
    _wait_readyz(stack, 200, timeout_s=60)
    assert any(line.startswith("generation#0 exited with code -9") for line in lines), lines
    assert any(line.startswith("restarted generation#1") for line in lines), lines
    assert stack.find("generation", 0).alive() and stack.find("generation", 1).alive()
    answer = httpx.post(f"{stack.url}/v1/rag/query", json=QUESTION, timeout=60).json()
    assert answer["decision"] == "answerable"


def test_killed_nats_is_restarted_and_the_stack_heals_with_its_rate_limit(stack_factory: StackFactory) -> None:
    stack = stack_factory(env={"RATE_LIMIT_PER_MINUTE": "3"})
    lines: list[str] = []
    stack.log = lines.append
    stack.backoff_factory = _fast_backoff
    stack.nats_backoff = _fast_backoff()
    stack.supervise_in_background()
    assert stack.nats is not None
    stack.nats.kill()
    killed_at = time.monotonic()
    _wait_readyz(stack, 503, timeout_s=10)
    _wait_readyz(stack, 200, timeout_s=20)
    recovered_s = time.monotonic() - killed_at
    assert any(line.startswith("restarted nats-server") for line in lines), lines
    assert recovered_s < 12, f"ready again {recovered_s:.1f}s after the bus was killed"

    fresh_rate_window(40)
    with httpx.Client(timeout=60) as client:
        first = client.post(f"{stack.url}/v1/rag/query", json=QUESTION)
        assert first.status_code == 200 and first.json()["decision"] == "answerable", first.text
        codes = [client.post(f"{stack.url}/v1/rag/query", json={"query": "Xin chào"}).status_code
                 for _ in range(3)]
    assert codes == [200, 200, 429], "the rate limit holds again after the bus restart"
