"""Shadow replay: re-run recorded turns through the current services, then diff.

Recorded ``turn.requested`` messages are republished on the ``shadow.`` lane
with a fresh deadline and an origin that belongs to this replay run, so the
completions come back to the replay tool only: no gateway, user or trace
store ever sees them.  Conversation context travels in the request payload,
so a replayed turn sees the same history the live one saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from nats.aio.msg import Msg

from duocthu_cli.audit.chain import ENDS, REQUESTED
from duocthu_cli.audit.diff import TurnDiff, compare
from duocthu_cli.audit.records import Recorded, read_window
from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnVerified
from duocthu_runtime import Bus, MessageRejected, addressed_subject, decode, derived_id, utcnow


@dataclass(frozen=True)
class ReplayReport:
    run_id: str
    since: datetime
    diffs: list[TurnDiff]

    @property
    def changed(self) -> list[TurnDiff]:
        return [d for d in self.diffs if d.changed]


def shadow_copy(recorded: TurnRequested, run_id: str) -> TurnRequested:
    """The recorded request on the shadow lane, addressed to this replay run."""
    budget = max(1.0, (recorded.deadline - recorded.occurred_at).total_seconds())
    now = utcnow()
    return recorded.model_copy(update={
        "message_id": derived_id(recorded.message_id, f"replay-{run_id}", TurnRequested.SCHEMA),
        "turn_id": derived_id(recorded.turn_id, f"replay-{run_id}", "turn"),
        "causation_id": recorded.message_id,
        "occurred_at": now,
        "deadline": now + timedelta(seconds=budget),
        "origin": f"audit-{run_id}",
        "lane": Lane.SHADOW,
        "stage_timings": (),
    })


async def replay(bus: Bus, since: datetime, *, timeout_s: float = 120.0, concurrency: int = 8) -> ReplayReport:
    run_id = uuid.uuid4().hex[:12]
    requests: list[TurnRequested] = []
    completions: dict[str, dict[str, object]] = {}
    async for record in read_window(bus.js, s.AUDIT_STREAM, since=since):
        if record.kind == REQUESTED:
            try:
                requests.append(decode(record.raw, TurnRequested))
            except MessageRejected:
                continue
        elif record.kind in ENDS and record.turn_id:
            completions[record.turn_id] = record.document
    shadow_of: dict[str, TurnRequested] = {}
    replayed: dict[str, dict[str, object]] = {}
    done = asyncio.Event()

    def on_end(end: type[TurnCompleted]) -> Callable[[Msg], Awaitable[None]]:
        async def on_completed(msg: Msg) -> None:
            try:
                completed = decode(msg.data, end)
            except MessageRejected:
                return
            if completed.turn_id in shadow_of:
                replayed[completed.turn_id] = completed.model_dump(mode="json", by_alias=True)
                if len(replayed) == len(shadow_of):
                    done.set()

        return on_completed

    subs = [await bus.broker.connection.subscribe(addressed_subject(end, f"audit-{run_id}", Lane.SHADOW),
                                                  cb=on_end(end))
            for end in (TurnCompleted, TurnVerified)]  # any stage's turn end, and the verifier's sealed one
    gate = asyncio.Semaphore(concurrency)

    async def send(original: TurnRequested) -> None:
        async with gate:
            copy = shadow_copy(original, run_id)
            shadow_of[copy.turn_id] = original
            await bus.publish(copy)

    try:
        await asyncio.gather(*(send(r) for r in requests))
        if requests:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), timeout_s)
    finally:
        for sub in subs:
            await sub.unsubscribe()
    diffs = []
    for shadow_turn, original in shadow_of.items():
        diffs.append(compare(original.turn_id, original.payload.query,
                             completions.get(original.turn_id), replayed.get(shadow_turn)))
    diffs.sort(key=lambda d: d.turn_id)
    return ReplayReport(run_id, since, diffs)


def turn_records(records: list[Recorded], turn_id: str) -> list[Recorded]:
    return [r for r in records if r.turn_id == turn_id]
