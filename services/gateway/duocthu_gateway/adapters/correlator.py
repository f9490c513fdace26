"""Correlating a published turn with its completion.

Each gateway replica subscribes (core NATS) to the completion and progress
subjects addressed to its own origin token, so a completion reaches the
replica that holds the HTTP request and no other.  Implements
:class:`duocthu_gateway.ports.TurnExchange`.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict

from faststream.exceptions import FastStreamException
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NatsError

from duocthu_contracts.messages import TurnCompleted, TurnProgress, TurnRequested
from duocthu_gateway.domain.timing import TurnTimings
from duocthu_gateway.errors import TurnNotPublished
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.subjects import addressed_subject
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.errors import MessageRejected
from duocthu_runtime.observability import metrics
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)

#: How long a turn is published again (``Bus.publish``, same message id) while the bus restarts: the supervisor
#: brings NATS back in seconds, and a turn whose PubAck was lost with the killed server must not wait out its
#: whole budget and end as request_budget_exhausted (issue 21's fault-injection run).  In a cluster, the kill of
#: the node leading ``RAG_AUDIT`` leaves it without a leader until a follower campaigns: nats-server waits a
#: random 4-9 s election timeout and up to 0.8 s of campaign, so the window covers one full election (the
#: cluster test saw turns of up to 11 s).  A dead bus is still told within 2 s: the gateway checks the connection
#: before publishing.
REPUBLISH_WINDOW_S = 12.0


class TurnCorrelator:
    def __init__(self, bus: Bus, origin: str) -> None:
        self.bus = bus
        self.origin = origin
        self._pending: dict[str, asyncio.Future[TurnCompleted]] = {}
        self._progress: dict[str, list[asyncio.Queue[TurnProgress]]] = defaultdict(list)
        self._subs: list[Subscription] = []

    async def start(self) -> None:
        nc = self.bus.broker.connection
        self._subs.append(await nc.subscribe(addressed_subject(TurnCompleted, self.origin), cb=self._on_completed))
        self._subs.append(await nc.subscribe(addressed_subject(TurnProgress, self.origin), cb=self._on_progress))

    async def stop(self) -> None:
        for sub in self._subs:
            await sub.unsubscribe()
        self._subs.clear()
        for fut in self._pending.values():
            fut.cancel()

    async def _on_completed(self, msg: Msg) -> None:
        try:
            completed = decode(msg.data, TurnCompleted)
        except MessageRejected as exc:
            metrics.BUS_REJECTED.labels("gateway", exc.reason).inc()
            log.error("completion_rejected", reason=exc.reason, detail=exc.detail[:300])
            return
        fut = self._pending.get(completed.turn_id)
        if fut is not None and not fut.done():
            fut.set_result(completed)

    async def _on_progress(self, msg: Msg) -> None:
        try:
            progress = decode(msg.data, TurnProgress)
        except MessageRejected:
            return
        for queue in self._progress.get(progress.turn_id, []):
            queue.put_nowait(progress)

    def watch(self, turn_id: str) -> asyncio.Queue[TurnProgress]:
        queue: asyncio.Queue[TurnProgress] = asyncio.Queue()
        self._progress[turn_id].append(queue)
        return queue

    def unwatch(self, turn_id: str, queue: asyncio.Queue[TurnProgress]) -> None:
        queues = self._progress.get(turn_id, [])
        if queue in queues:
            queues.remove(queue)
        if not queues:
            self._progress.pop(turn_id, None)

    async def submit(self, request: TurnRequested, timeout_s: float,
                     timings: TurnTimings | None = None) -> TurnCompleted | None:
        """Publish ``request`` and wait for its completion; ``None`` when the deadline passes."""
        fut: asyncio.Future[TurnCompleted] = asyncio.get_running_loop().create_future()
        self._pending[request.turn_id] = fut
        began = time.perf_counter()
        try:
            try:
                await self.bus.publish(request, within_s=min(timeout_s, REPUBLISH_WINDOW_S))
            except (NatsError, FastStreamException, TimeoutError) as exc:
                raise TurnNotPublished(f"{type(exc).__name__}: {exc}") from exc
            stored = time.perf_counter()
            if timings is not None:
                timings.add("puback", (stored - began) * 1000)
            try:
                completed = await asyncio.wait_for(fut, timeout=max(0.0, timeout_s - (time.perf_counter() - began)))
            except TimeoutError:
                return None
            if timings is not None:
                timings.add("completion", (time.perf_counter() - stored) * 1000)
            return completed
        finally:
            self._pending.pop(request.turn_id, None)
