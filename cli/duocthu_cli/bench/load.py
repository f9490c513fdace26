"""Closed-loop HTTP load against a running gateway: C workers, N requests, latency and outcome shares."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from duocthu_cli.bench.stats import parse_server_timing, summary_ms
from duocthu_runtime import JobProgress


@dataclass
class LoadResult:
    latencies_ms: list[float] = field(default_factory=list)
    decisions: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    wall_s: float = 0.0
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    #: per answered request: the gateway's Server-Timing phases (ms) and ``client`` (the latency seen here)
    server_timings: list[dict[str, float]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        total = len(self.latencies_ms) + self.errors
        return {
            "requests": total, "latency_ms": summary_ms(self.latencies_ms),
            "throughput_rps": total / self.wall_s if self.wall_s else 0.0,
            "error_rate": self.errors / total if total else 0.0,
            "abstain_rate": self.decisions["abstain"] / total if total else 0.0,
            "decisions": dict(self.decisions),
            "stage_ms_p50": {k: summary_ms(v)["p50"] for k, v in sorted(self.stage_ms.items())},
        }


async def run_load(url: str, questions: Sequence[str], *, concurrency: int, requests: int,
                   timeout_s: float = 60.0) -> LoadResult:
    result = LoadResult()
    queue: asyncio.Queue[str] = asyncio.Queue()
    for i in range(requests):
        queue.put_nowait(questions[i % len(questions)])

    async def worker(client: httpx.AsyncClient, progress: JobProgress) -> None:
        while True:
            try:
                question = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            progress.advance()
            started = time.perf_counter()
            try:
                response = await client.post(f"{url}/v1/rag/query", json={"query": question}, timeout=timeout_s)
                body = response.json()
            except (httpx.HTTPError, ValueError):
                result.errors += 1
                continue
            if response.status_code != 200:
                result.errors += 1
                continue
            latency_ms = (time.perf_counter() - started) * 1000
            result.latencies_ms.append(latency_ms)
            if header := response.headers.get("server-timing"):
                result.server_timings.append({**parse_server_timing(header), "client": latency_ms})
            result.decisions[str(body.get("decision"))] += 1
            for timing in body.get("stage_timings") or []:
                result.stage_ms.setdefault(str(timing.get("stage")), []).append(float(timing.get("ms", 0.0)))

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits) as client:
        started = time.perf_counter()
        with JobProgress(f"bench x{concurrency}", requests, unit="requests") as progress:
            await asyncio.gather(*(worker(client, progress) for _ in range(concurrency)))
        result.wall_s = time.perf_counter() - started
    return result
