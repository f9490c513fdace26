"""Rate limit shared through NATS KV, admin bearer token, and the server-sent status stream."""

from __future__ import annotations

import json

import httpx
import pytest

from duocthu_gateway.adapters.ratelimit import RateLimiter
from duocthu_runtime import Bus, RuntimeSettings
from duocthu_runtime.devstack import NatsServer
from tests.fixtures.gateway import fresh_rate_window
from tests.fixtures.stack import StackFactory


async def test_two_replicas_share_one_count(fresh_nats: NatsServer) -> None:
    buses = [Bus(RuntimeSettings(nats_url=fresh_nats.url), client_name=f"gw{i}") for i in range(2)]
    for bus in buses:
        await bus.connect()
    first, second = (RateLimiter(bus, per_minute=5) for bus in buses)
    now = 1_000_020.0
    decisions = [await (first if i % 2 else second).check("10.0.0.7", now=now) for i in range(7)]
    assert [d.allowed for d in decisions] == [True] * 5 + [False] * 2
    assert 0 < decisions[-1].retry_after_s <= 61
    assert (await first.check("10.0.0.8", now=now)).allowed  # another client has its own count
    assert (await second.check("10.0.0.7", now=now + 60)).allowed  # a new window
    for bus in buses:
        await bus.stop()


@pytest.mark.e2e
def test_http_rate_limit_admin_token_and_sse(stack_factory: StackFactory) -> None:
    # /readyz (the fixture's default) is 200 only once every stage has a live replica: before that the gateway
    # refuses a turn as stage_unavailable
    stack = stack_factory(env={"RATE_LIMIT_PER_MINUTE": "4", "ADMIN_TOKEN": "s3cret"})
    url = stack.url
    fresh_rate_window(30)  # the stream below counts too: all five requests in one window
    with httpx.Client(timeout=60) as client:
        with client.stream("POST", f"{url}/v1/rag/query/stream",
                           json={"query": "Chống chỉ định của metformin?"}) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            events = [line for line in response.iter_lines() if line.startswith(("event:", "data:"))]
        names = [e.split(": ", 1)[1] for e in events if e.startswith("event:")]
        datas = [json.loads(e.split(": ", 1)[1]) for e in events if e.startswith("data:")]
        assert names[-1] == "result" and names.count("result") == 1
        stages = [d["stage"] for d in datas[:-1]]
        assert {"understanding", "retrieval", "generation", "verifier"} <= set(stages)
        assert all("claims" not in d for d in datas[:-1])  # nothing unverified is streamed
        assert datas[-1]["decision"] == "answerable" and datas[-1]["claims"]

        codes = [client.post(f"{url}/v1/rag/query", json={"query": "Xin chào"}).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = client.post(f"{url}/v1/rag/query", json={"query": "Xin chào"})
        assert limited.json()["error"] == "rate_limited" and limited.json()["trace_id"]
        assert limited.headers["X-Trace-ID"] == limited.json()["trace_id"]
        assert int(limited.headers["Retry-After"]) > 0

        trigger = {"pdf_uri": "/nonexistent.pdf"}
        assert client.post(f"{url}/v1/admin/ingest", json=trigger).status_code == 401
        wrong = client.post(f"{url}/v1/admin/ingest", json=trigger, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 403 and wrong.json()["error"] == "forbidden" and wrong.json()["trace_id"]
        ok = client.post(f"{url}/v1/admin/ingest", json=trigger, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 202 and ok.json()["accepted"]
