"""A turn through real NATS and all six real service processes."""

from __future__ import annotations

import asyncio
import signal
import threading
import time

import httpx
import pytest

from duocthu_cli.stack.supervisor import Stack
from duocthu_contracts.http import DISCLAIMER, RagQueryResponse
from duocthu_runtime import Bus, RuntimeSettings
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e

UNDERSTANDING_DURABLE = "understanding__rag_turn_requested"


def test_turn_round_trip_with_correlation(stack_factory: StackFactory) -> None:
    stack = stack_factory()
    response = httpx.post(f"{stack.url}/v1/rag/query", json={"query": "Chống chỉ định của metformin?",
                                                              "conversation_id": "conv-e2e"},
                          headers={"X-Correlation-ID": "corr-e2e-1"}, timeout=60)
    assert response.status_code == 200
    body = RagQueryResponse.model_validate(response.json())
    assert body.correlation_id == "corr-e2e-1"
    assert response.headers["X-Correlation-ID"] == "corr-e2e-1"
    assert body.conversation_id == "conv-e2e"
    assert body.disclaimer == DISCLAIMER
    assert body.decision in {"answerable", "clarify", "verify_pdf", "abstain"}
    assert body.reason != "request_budget_exhausted"
    assert body.stage_timings, "the completing stage recorded its timing in the envelope"
    timing = response.headers["Server-Timing"]  # the gateway names its phases and every hop of the turn
    for phase in ("ratelimit", "state", "puback", "completion", "hop_understanding", "stage_retrieval",
                  "hop_verifier", "hop_gateway", "total"):
        assert f"{phase};dur=" in timing, phase


async def _consumer(settings: RuntimeSettings, durable: str) -> dict[str, int]:
    bus = Bus(settings, client_name="inspector")
    await bus.connect()
    info = await bus.js.consumer_info("RAG_AUDIT", durable)
    await bus.stop()
    return {"ack_pending": info.num_ack_pending, "deliveries": info.delivered.consumer_seq or 0}


#: The stages' long poll in this test: the frozen victim's last pull request must still wait at the server when
#: the turn arrives (with the suite's 1 s, a loaded full run once took longer than that to publish the turn).
FETCH_S = 4.0


def _ask_in_background(stack: Stack, result: dict[str, httpx.Response]) -> threading.Thread:
    sender = threading.Thread(target=lambda: result.setdefault("r", httpx.post(
        f"{stack.url}/v1/rag/query", json={"query": "Liều amoxicilin cho người lớn?"}, timeout=60)))
    sender.start()
    return sender


def _held_by_a_frozen_replica(stack: Stack, within_s: float) -> bool:
    while within_s > 0:
        began = time.monotonic()
        if asyncio.run(_consumer(stack.ops_settings(), UNDERSTANDING_DURABLE))["ack_pending"] == 1:
            return True
        time.sleep(0.05)
        within_s -= time.monotonic() - began
    return False


def test_turn_survives_a_replica_killed_mid_flight(stack_factory: StackFactory) -> None:
    stack = stack_factory(replicas={"understanding": 2}, env={"BUS_FETCH_TIMEOUT_S": str(FETCH_S)})
    victim, survivor = stack.find("understanding", 0), stack.find("understanding", 1)
    # Freeze the survivor long enough for its outstanding pull requests to expire, so the
    # turn can only be handed to the victim.
    survivor.kill(signal.SIGSTOP)
    time.sleep(FETCH_S + 0.5)
    for _ in range(3):
        before = asyncio.run(_consumer(stack.ops_settings(), UNDERSTANDING_DURABLE))["deliveries"]
        # Freeze the victim while one of its pull requests waits at the server: the server delivers the turn
        # to it, and it never processes or acks it.
        victim.kill(signal.SIGSTOP)
        result: dict[str, httpx.Response] = {}
        sender = _ask_in_background(stack, result)
        if _held_by_a_frozen_replica(stack, within_s=FETCH_S + 2):
            break
        # The victim was frozen as its last pull request ran out (a long poll's remaining life is anything up to
        # BUS_FETCH_TIMEOUT_S), and the turn waits for nobody: let the victim answer it, and freeze it again.
        victim.kill(signal.SIGCONT)
        sender.join(30)
    else:
        raise AssertionError("in three tries the turn was never delivered to the frozen replica")
    victim.kill(signal.SIGKILL)  # dies mid-flight, without acking
    killed_at = time.monotonic()
    survivor.kill(signal.SIGCONT)
    sender.join(30)
    recovered_s = time.monotonic() - killed_at
    assert recovered_s < 10, f"the held turn completed {recovered_s:.1f}s after its replica died"
    response = result["r"]
    assert response.status_code == 200
    body = response.json()
    assert body["reason"] != "request_budget_exhausted"
    state = asyncio.run(_consumer(stack.ops_settings(), UNDERSTANDING_DURABLE))
    # one turn, two deliveries: the frozen-then-killed replica's and the survivor's
    assert state == {"ack_pending": 0, "deliveries": before + 2}
