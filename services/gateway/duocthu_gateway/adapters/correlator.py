"""Correlating a published turn with its completion.

Each gateway replica subscribes (core NATS) to the subjects of a turn's end
(any stage's ``turn.completed`` and the verifier's sealed ``turn.verified``)
and of progress, addressed to its own origin token, so a completion reaches
the replica that holds the HTTP request and no other.  Which subject a
completion came on decides the class it is read as (a body claiming another
schema is rejected), and so what the gate (``application/admission.py``)
asks of it; nothing in its payload is trusted here.  A core subscription hears
nothing while its connection fails over to another node (10-30 ms in a
cluster), but the completion is stored in ``RAG_AUDIT`` all the same: after a
reconnection, the replica reads its own completions stored since its oldest
waiting turn was asked (:meth:`Bus.stored_since`), so such a turn is answered
instead of running out its budget.  Implements
:class:`duocthu_gateway.ports.TurnExchange`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from faststream.exceptions import FastStreamException
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NatsError

from duocthu_contracts.messages import TurnCompleted, TurnProgress, TurnRequested, TurnVerified
from duocthu_gateway.domain.timing import TurnTimings
from duocthu_gateway.errors import TurnNotPublished
from duocthu_runtime import BUS_REJECTED, Bus, MessageRejected, addressed_subject, decode, get_logger, origin_token

log = get_logger(__name__)

#: How long a turn is published again (``Bus.publish``, same message id) while the bus restarts: the supervisor
#: brings NATS back in seconds, and a turn whose PubAck was lost with the killed server must not wait out its
#: whole budget and end as request_budget_exhausted (issue 21's fault-injection run).  In a cluster, the kill of
#: the node leading ``RAG_AUDIT`` leaves it without a leader until a follower campaigns: nats-server waits a
#: random 4-9 s election timeout and up to 0.8 s of campaign, so the window covers one full election (the
#: cluster test saw turns of up to 11 s).  A dead bus is still told within 2 s: the gateway checks the connection
#: before publishing.
REPUBLISH_WINDOW_S = 12.0

#: The catch-up after a reconnection reads from this long before the oldest waiting turn was asked: the stored
#: timestamps are the server's clock, not ours. Completions of turns no longer waiting are read and ignored.
CLOCK_MARGIN_S = 5.0
#: How long the catch-up tries to create its consumer: in a cluster, ``RAG_AUDIT`` may be without a leader for
#: one election after the kill of the node that led it (no completion is stored meanwhile either).
CATCH_UP_WINDOW_S = REPUBLISH_WINDOW_S
#: A failed creation is tried again after this long, or not at all once every waiting turn has ended.
CATCH_UP_PAUSE_S = 0.25
#: The server drops a catch-up consumer this long after the gateway stopped listening to it (no delete grant).
CATCH_UP_IDLE_S = 30.0
#: The messages that end a turn, each on its own subject: any stage's, and the verifier's sealed one.
ENDS: tuple[type[TurnCompleted], ...] = (TurnCompleted, TurnVerified)


@dataclass(frozen=True)
class _Waiting:
    """A published turn waiting for its completion."""

    answer: asyncio.Future[TurnCompleted]
    asked_at: datetime  #: the request's ``occurred_at``: where a catch-up starts reading


class TurnCorrelator:
    def __init__(self, bus: Bus, origin: str) -> None:
        self.bus = bus
        self.origin = origin
        self._pending: dict[str, _Waiting] = {}
        self._progress: dict[str, list[asyncio.Queue[TurnProgress]]] = defaultdict(list)
        self._subs: list[Subscription] = []
        self._catch_ups: set[asyncio.Task[None]] = set()
        self.catch_ups = 0
        self.recovered = 0

    async def start(self) -> None:
        nc = self.bus.broker.connection
        for end in ENDS:
            self._subs.append(await nc.subscribe(addressed_subject(end, self.origin), cb=self._on_end(end)))
        self._subs.append(await nc.subscribe(addressed_subject(TurnProgress, self.origin), cb=self._on_progress))
        self.bus.on_reconnect(self._on_reconnected)

    async def stop(self) -> None:
        for task in list(self._catch_ups):
            task.cancel()
        for sub in self._subs:
            await sub.unsubscribe()
        self._subs.clear()
        for waiting in self._pending.values():
            waiting.answer.cancel()

    async def _on_reconnected(self) -> None:
        """Start a catch-up when turns are waiting (run in the background: the reconnection callback must return)."""
        waiting = [w for w in self._pending.values() if not w.answer.done()]
        if not waiting:
            return
        since = min(w.asked_at for w in waiting) - timedelta(seconds=CLOCK_MARGIN_S)
        task = asyncio.create_task(self._catch_up([w.answer for w in waiting], since))
        self._catch_ups.add(task)
        task.add_done_callback(self._catch_ups.discard)

    async def _catch_up(self, waiting: list[asyncio.Future[TurnCompleted]], since: datetime) -> None:
        """Read this replica's turn ends stored from ``since`` until every turn in ``waiting`` has ended."""
        self.catch_ups += 1
        recovered = 0

        def on_stored(end: type[TurnCompleted]) -> Callable[[Msg], Awaitable[None]]:
            async def deliver(msg: Msg) -> None:
                nonlocal recovered
                if self._deliver(msg, end):  # not heard on the core subscription: the failover had taken it
                    recovered += 1
                    self.recovered += 1

            return deliver

        subs: list[Subscription] = []
        try:
            for end in ENDS:
                sub = await self._stored_since(end, since, on_stored(end), waiting)
                if sub is None:
                    return
                subs.append(sub)
            log.info("completion_catch_up", turns=len(waiting), since=since.isoformat())
            await asyncio.wait(waiting)  # each ends answered or at its own deadline (submit)
        finally:
            for sub in subs:
                with contextlib.suppress(NatsError):
                    await sub.unsubscribe()
            if subs:
                log.info("completion_catch_up_done", turns=len(waiting), recovered=recovered)

    async def _stored_since(self, end: type[TurnCompleted], since: datetime, callback: Callable[[Msg], Awaitable[None]],
                            waiting: list[asyncio.Future[TurnCompleted]]) -> Subscription | None:
        """A catch-up consumer of ``end``'s subject for this replica, or None when it is given up or not needed."""
        give_up = time.monotonic() + CATCH_UP_WINDOW_S
        attempt = 0
        while True:
            attempt += 1
            # A new name each attempt: in a cluster the meta leader may place the consumer on the node that just
            # died (not yet known to be gone), and a create under the same name would find that placement again.
            name = f"gw_catchup_{origin_token(self.origin)}_{self.catch_ups}_{end.__name__.lower()}_{attempt}"
            try:
                return await self.bus.stored_since(addressed_subject(end, self.origin), since, callback,
                                                   name=name, idle_s=CATCH_UP_IDLE_S)
            except (NatsError, TimeoutError) as exc:
                if time.monotonic() >= give_up:
                    log.warning("completion_catch_up_failed", turns=len(waiting), attempts=attempt,
                                subject=end.SUBJECT, error=f"{type(exc).__name__}: {exc}")
                    return None
                _, still = await asyncio.wait(waiting, timeout=CATCH_UP_PAUSE_S)  # the next attempt, unless
                if not still:  # every turn ended meanwhile (answered on the core subscription, or timed out)
                    log.info("completion_catch_up_unneeded", turns=len(waiting), attempts=attempt)
                    return None

    def _on_end(self, end: type[TurnCompleted]) -> Callable[[Msg], Awaitable[None]]:
        async def on_end(msg: Msg) -> None:
            self._deliver(msg, end)

        return on_end

    def _deliver(self, msg: Msg, end: type[TurnCompleted]) -> bool:
        """Hand a turn's end to the turn waiting for it; whether one was waiting (the core and catch-up paths)."""
        try:
            completed = decode(msg.data, end)
        except MessageRejected as exc:
            BUS_REJECTED.labels("gateway", exc.reason).inc()
            log.error("completion_rejected", reason=exc.reason, detail=exc.detail[:300])
            return False
        waiting = self._pending.get(completed.turn_id)
        if waiting is None or waiting.answer.done():
            return False
        waiting.answer.set_result(completed)
        return True

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
        self._pending[request.turn_id] = _Waiting(fut, request.occurred_at)
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
