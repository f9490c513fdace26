"""Time the gateway's turn record write (the history row written before each answer), median of repeated runs.

The write sits on every answer's path (``HISTORY_WRITE_BEHIND`` off by default), so its cost is part of the
route-A turn over HTTP.  Run: ``duocthu bench store-write --writes 300 --repeats 5``
(SQLite under a temporary var dir, the default store; ``--database-url`` for PostgreSQL).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.http import RagQueryResponse
from duocthu_gateway import Store, database_url, turn_record
from duocthu_runtime import utcnow


async def _one_run(url: str, writes: int) -> float:
    store = Store(url)
    await store.create()
    conversation = uuid.uuid4().hex
    took: list[float] = []
    for number in range(writes):
        response = RagQueryResponse(trace_id=uuid.uuid4().hex, correlation_id=f"bench-{number}",
                                    conversation_id=conversation, decision=Decision.ANSWERABLE,
                                    reason=Reason.VERIFIED, answer="Liều thường dùng: 500 mg mỗi 8 giờ. " * 20)
        record = turn_record(response, None, "Liều amoxicilin cho người lớn?", utcnow(), client_key="bench")
        started = time.perf_counter()
        await store.record_turn(record)
        took.append((time.perf_counter() - started) * 1000)
    await store.close()
    return statistics.median(took)


def run_store_write(*, writes: int, repeats: int, url: str | None) -> None:
    """Time ``writes`` turn records into a fresh store (``url``, else SQLite), ``repeats`` times; print the medians."""
    medians = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as var_dir:
            medians.append(asyncio.run(_one_run(database_url(url, var_dir), writes)))
    print("record_turn ms, median per run:", " ".join(f"{m:.2f}" for m in medians),
          f"| median of runs {statistics.median(medians):.2f}")
