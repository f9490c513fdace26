"""Correlating a published turn with its completion.

Each gateway replica subscribes (core NATS) to the completion and progress
subjects addressed to its own origin token, so a completion reaches the
replica that holds the HTTP request and no other.  Implements
:class:`duocthu_gateway.ports.TurnExchange`.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

from faststream.exceptions import FastStreamException
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NatsError

from duocthu_contracts.messages import TurnCompleted, TurnProgress, TurnRequested
from duocthu_gateway.errors import TurnNotPublished
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.subjects import addressed_subject
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.errors import MessageRejected
from duocthu_runtime.observability import metrics
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)

#: How long a turn is published again while the bus restarts (the supervisor brings NATS back in seconds),
#: each attempt's wait for the PubAck, and the pause between attempts.
REPUBLISH_WINDOW_S = 8.0
PUBLISH_ATTEMPT_S = 2.0
REPUBLISH_PAUSE_S = 0.25


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

    async def submit(self, request: TurnRequested, timeout_s: float) -> TurnCompleted | None:
        """Publish ``request`` and wait for its completion; ``None`` when the deadline passes."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        fut: asyncio.Future[TurnCompleted] = loop.create_future()
        self._pending[request.turn_id] = fut
        try:
            await self._publish(request, min(timeout_s, REPUBLISH_WINDOW_S))
            try:
                return await asyncio.wait_for(fut, timeout=max(0.0, timeout_s - (loop.time() - started)))
            except TimeoutError:
                return None
        finally:
            self._pending.pop(request.turn_id, None)

    async def _publish(self, request: TurnRequested, window_s: float) -> None:
        """Store the turn in JetStream, publishing it again (same message id: one stored copy) while the bus
        restarts; raises :class:`TurnNotPublished` when it is still not stored after ``window_s``.

        Without this, a turn whose PubAck was lost with a killed server waited out the publish timeout and was
        answered ``request_budget_exhausted`` (issue 21's fault-injection run), though the server was back in
        two seconds.
        """
        loop = asyncio.get_running_loop()
        until = loop.time() + window_s
        while True:
            try:
                await self.bus.publish(request, timeout_s=max(0.1, min(PUBLISH_ATTEMPT_S, until - loop.time())))
                return
            except (TimeoutError, NatsError, FastStreamException) as exc:
                if loop.time() + REPUBLISH_PAUSE_S >= until:
                    raise TurnNotPublished(f"{type(exc).__name__}: {exc}") from exc
                log.warning("turn_publish_retried", turn_id=request.turn_id, error=f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(REPUBLISH_PAUSE_S)
