"""A pipeline stage: durable pull consumers, thin handlers, ack after publish.

The stage framework owns every rule that must hold for all stages, so that a
handler is a plain translation of one message into a domain call:

* one durable pull consumer per input subject, shared by all replicas of the
  stage (NATS hands each message to one replica); a replica handles up to a
  fetch batch of deliveries at once and fetches again as soon as the fetched
  ones are handed to its workers, never waiting for the slowest of a batch (a
  turn arriving behind a slow one would otherwise wait for it);
* decode with a schema/major-version check; a message that cannot be read is
  logged, counted and terminated, never crashes the process;
* a turn past its deadline is completed as ``request_budget_exhausted``;
* a handler that raises completes the turn as ``internal_error`` (fail
  closed, with a reason) instead of leaving the user waiting;
* outputs are published (durably, de-duplicated by message id) *before* the
  input is acked; a process that dies in between is redelivered, and its
  re-published outputs are dropped as duplicates;
* while a handler runs, a progress ack (``+WPI``) goes out every third of the
  ack wait, so the ack wait can be short (seconds): a message held by a
  replica that died is redelivered to another one quickly, and a slow but
  live handler is never redelivered behind its back.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

import structlog
from faststream import AckPolicy
from faststream.exceptions import FastStreamException
from faststream.nats import JStream, NatsMessage, PullSub
from nats.errors import Error as NatsError
from nats.js.api import AckPolicy as JsAckPolicy
from nats.js.api import ConsumerConfig, DeliverPolicy

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.messages import TurnCompleted, TurnCompletedPayload, TurnProgress, TurnProgressPayload
from duocthu_runtime.bus.bus import Bus
from duocthu_runtime.bus.envelope import derive, utcnow
from duocthu_runtime.bus.subjects import stream_for, subject_for_type
from duocthu_runtime.bus.topology import durable_name
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.errors import MessageRejected
from duocthu_runtime.observability import metrics
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.observability.tracing import current_traceparent, span

In = TypeVar("In", bound=Message)
T = TypeVar("T", bound=TurnMessage)

log = get_logger(__name__)


@dataclass
class StageContext(Generic[In]):
    """What a handler may do besides computing: derive outputs, complete the turn."""

    stage: str
    message: In
    started_at: datetime
    _raw: NatsMessage | None = field(default=None, repr=False)

    def derive(self, cls: type[T], payload: Any, *, llm_calls_used: int = 0) -> T:
        cause: TurnMessage = self._turn()
        return derive(
            cause,
            cls,
            payload,
            stage=self.stage,
            started_at=self.started_at,
            llm_calls_used=llm_calls_used,
            traceparent=current_traceparent(),
        )

    def complete(
        self, decision: Decision, reason: Reason, *, llm_calls_used: int = 0, **fields: Any
    ) -> TurnCompleted:
        """End the turn here with ``decision``/``reason``; ``fields`` fill the payload."""
        cause = self._turn()
        base = cause.payload  # every turn payload extends TurnContext
        payload = TurnCompletedPayload(
            query=base.query,
            conversation_id=base.conversation_id,
            response_mode=base.response_mode,
            decision=decision,
            reason=reason,
            completed_by=self.stage,
            **fields,
        )
        return self.derive(TurnCompleted, payload, llm_calls_used=llm_calls_used)

    def remaining_s(self) -> float:
        deadline: datetime = self._turn().deadline
        return (deadline - utcnow()).total_seconds()

    async def heartbeat(self) -> None:
        """Tell JetStream a long job is still being worked on (resets ack_wait)."""
        if self._raw is not None:
            await self._raw.in_progress()

    def _turn(self) -> Any:  # Any: the concrete TurnMessage subclass carries a TurnContext payload
        if not isinstance(self.message, TurnMessage):
            raise TypeError(f"{type(self.message).__name__} does not belong to a turn")
        return self.message


Handler = Callable[[In, StageContext[In]], Awaitable[Sequence[Message]]]


class Stage:
    """Registers a stage's handlers on a :class:`Bus`."""

    def __init__(self, name: str, bus: Bus) -> None:
        self.name = name
        self.bus = bus
        self.handled = 0
        #: every durable consumer registered: (message type, lane, durable name) — checked against the topology
        self.consumed: list[tuple[type[Message], Lane, str]] = []

    def durable_name(self, cls: type[Message], lane: Lane) -> str:
        return durable_name(self.name, cls, lane)

    def consumes(
        self,
        cls: type[In],
        handler: Handler[In],
        *,
        lanes: Sequence[Lane] = (Lane.LIVE, Lane.SHADOW),
        ack_wait_s: float | None = None,
        fetch_batch: int | None = None,
    ) -> None:
        settings = self.bus.settings
        for lane in lanes if issubclass(cls, TurnMessage) else (Lane.LIVE,):
            subject = subject_for_type(cls, lane)
            durable = self.durable_name(cls, lane)  # the topology table's name; refused if it has none for us
            self.consumed.append((cls, lane, durable))
            config = ConsumerConfig(
                durable_name=durable,
                ack_policy=JsAckPolicy.EXPLICIT,
                ack_wait=ack_wait_s or settings.bus_ack_wait_s,
                max_deliver=settings.bus_max_deliver,
                deliver_policy=DeliverPolicy.NEW if issubclass(cls, TurnMessage) else DeliverPolicy.ALL,
                filter_subject=subject,
                max_ack_pending=1000,
            )
            batch = fetch_batch or settings.bus_fetch_batch
            subscriber = self.bus.broker.subscriber(
                subject,
                stream=JStream(stream_for(subject), declare=False),
                durable=durable,
                config=config,
                pull_sub=PullSub(batch_size=batch, timeout=settings.bus_fetch_timeout_s),
                # up to `batch` deliveries handled at once, and the next fetch goes out while they run (a
                # plain pull subscriber waits for the slowest of a batch before fetching again)
                max_workers=batch,
                ack_policy=AckPolicy.MANUAL,
                inbox_prefix=f"{settings.inbox_prefix}.".encode(),  # fetched messages arrive in our own inbox
                decoder=_delivery,
                title=f"{self.name}:{subject}",
            )
            subscriber(self._wrap(cls, handler, config.ack_wait or settings.bus_ack_wait_s))

    def _wrap(self, cls: type[In], handler: Handler[In],
              ack_wait_s: float) -> Callable[[NatsMessage], Awaitable[None]]:
        async def on_message(delivery: Any) -> None:
            msg: NatsMessage = delivery
            keeper = asyncio.create_task(_keep_in_progress(msg, ack_wait_s / 3))
            try:
                await self.handle(cls, handler, msg.body, msg)
            finally:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper

        on_message.__name__ = f"{self.name}_{cls.__name__}"
        return on_message

    async def handle(
        self, cls: type[In], handler: Handler[In], body: bytes, raw: NatsMessage | None
    ) -> Sequence[Message]:
        """Process one delivery; returns what was published (for tests and in-process runs)."""
        started = utcnow()
        t0 = time.perf_counter()
        try:
            message = decode(body, cls)
        except MessageRejected as exc:
            metrics.BUS_REJECTED.labels(self.name, exc.reason).inc()
            log.error("message_rejected", stage=self.name, reason=exc.reason, detail=exc.detail[:500])
            if raw is not None:
                await raw.reject()
            return []
        ids: dict[str, str] = {"message_id": message.message_id, "correlation_id": message.correlation_id}
        if isinstance(message, TurnMessage):
            ids["turn_id"] = message.turn_id
        with structlog.contextvars.bound_contextvars(stage=self.name, **ids):
            try:
                outputs = await self._run(cls, handler, message, started, raw)
            except Exception:  # the entry point of every handler, logged in _run: only non-turn work gets here
                if raw is not None:
                    await raw.nack(delay=5.0)
                return []
            try:
                for out in outputs:
                    if not await self.bus.publish(out):
                        metrics.PUBLISH_DUPLICATES.labels(self.name).inc()
            except Exception:  # whatever stopped the publish, the input is redelivered, never lost
                log.exception("publish_failed")
                metrics.STAGE_MESSAGES.labels(self.name, cls.SCHEMA, "publish_failed").inc()
                if raw is not None:
                    await raw.nack(delay=1.0)
                return []
            if raw is not None:
                await raw.ack()
            self.handled += 1
            metrics.STAGE_LATENCY.labels(self.name).observe(time.perf_counter() - t0)
            return outputs

    async def _run(
        self, cls: type[In], handler: Handler[In], message: In, started: datetime, raw: NatsMessage | None
    ) -> Sequence[Message]:
        ctx: StageContext[In] = StageContext(self.name, message, started, raw)
        traceparent = getattr(message, "traceparent", None)
        with span(f"{self.name} {cls.SCHEMA}", traceparent=traceparent, stage=self.name):
            if isinstance(message, TurnMessage):
                if ctx.remaining_s() <= 0:
                    metrics.STAGE_MESSAGES.labels(self.name, cls.SCHEMA, "deadline_passed").inc()
                    return self._count([ctx.complete(
                        Decision.ABSTAIN, Reason.REQUEST_BUDGET_EXHAUSTED,
                        detail=f"deadline passed before {self.name}",
                    )])
                await self._progress(ctx)
            try:
                outputs = await handler(message, ctx)
            except Exception as exc:
                log.exception("handler_failed")
                metrics.STAGE_MESSAGES.labels(self.name, cls.SCHEMA, "handler_failed").inc()
                if not isinstance(message, TurnMessage):
                    raise
                return self._count([ctx.complete(
                    Decision.ABSTAIN, Reason.INTERNAL_ERROR, detail=f"{self.name}: {type(exc).__name__}"
                )])
            metrics.STAGE_MESSAGES.labels(self.name, cls.SCHEMA, "ok").inc()
            return self._count(outputs)

    def _count(self, outputs: Sequence[Message]) -> Sequence[Message]:
        for out in outputs:
            if isinstance(out, TurnCompleted):
                metrics.TURN_DECISIONS.labels(self.name, out.payload.decision, out.payload.reason).inc()
        return outputs

    async def _progress(self, ctx: StageContext[Any]) -> None:
        message = ctx.message
        if message.lane is not Lane.LIVE:
            return
        progress = ctx.derive(TurnProgress, TurnProgressPayload(stage=self.name, status="started"))
        try:
            await self.bus.publish_fire_and_forget(progress)
        except (NatsError, FastStreamException, TimeoutError):  # advisory only: never fail a turn over a status line
            log.warning("progress_publish_failed")


async def _delivery(msg: NatsMessage) -> NatsMessage:
    """The "decoded body" FastStream hands the handler: the delivery itself, untouched.

    FastStream's own decoder would ``json.loads`` every body (our bodies carry no content type) only for it to
    be thrown away, and a handler asking for the delivery through ``NatsMessage`` (a ``Context`` field) has it
    resolved by FastDepends in a worker thread -- a thread hop and a loop wake-up on every message.  The stage
    decodes the bytes itself (``versioning.decode``: schema and major-version checks) and needs the delivery to
    ack it, so the delivery is what the handler receives.
    """
    return msg


async def _keep_in_progress(msg: NatsMessage, every_s: float) -> None:
    """Progress-ack ``msg`` every ``every_s`` until cancelled (the handler finished)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            await msg.in_progress()
        except (NatsError, FastStreamException, TimeoutError):  # advisory: the ack wait will redeliver if we died
            log.warning("progress_ack_failed")
