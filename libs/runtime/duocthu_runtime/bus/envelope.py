"""Creating envelopes: a new turn, and a message caused by another one.

A derived message's id is a UUID5 of its cause, its stage and its schema, so
a stage that is redelivered the same input publishes the *same* message id
and JetStream's ``Nats-Msg-Id`` de-duplication drops the second copy.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from duocthu_contracts.envelope import Lane, Message, StageTiming, TurnMessage

_NAMESPACE = uuid.UUID("6b0f3c52-5c3e-4c59-9a2e-5f1d8a7d2c11")

T = TypeVar("T", bound=TurnMessage)
M = TypeVar("M", bound=Message)


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


def derived_id(cause_id: str, stage: str, schema: str) -> str:
    return uuid.uuid5(_NAMESPACE, f"{cause_id}/{stage}/{schema}").hex


def new_turn(
    cls: type[T],
    payload: Any,
    *,
    origin: str,
    deadline_s: float,
    llm_calls: int,
    correlation_id: str | None = None,
    traceparent: str | None = None,
    lane: Lane = Lane.LIVE,
    turn_id: str | None = None,
) -> T:
    now = utcnow()
    message_id = new_id()
    return cls(
        schema_=cls.SCHEMA,
        message_id=message_id,
        turn_id=turn_id or message_id,
        correlation_id=correlation_id or message_id,
        causation_id=None,
        occurred_at=now,
        traceparent=traceparent,
        deadline=now + timedelta(seconds=deadline_s),
        llm_calls_remaining=llm_calls,
        origin=origin,
        lane=lane,
        payload=payload,
    )


def derive(
    cause: TurnMessage,
    cls: type[T],
    payload: Any,
    *,
    stage: str,
    started_at: datetime,
    llm_calls_used: int = 0,
    traceparent: str | None = None,
) -> T:
    """The message ``stage`` publishes in reaction to ``cause``."""
    now = utcnow()
    timing = StageTiming(
        stage=stage,
        started_at=started_at,
        finished_at=now,
        ms=max(0.0, (now - started_at).total_seconds() * 1000.0),
    )
    return cls(
        schema_=cls.SCHEMA,
        message_id=derived_id(cause.message_id, stage, cls.SCHEMA),
        turn_id=cause.turn_id,
        correlation_id=cause.correlation_id,
        causation_id=cause.message_id,
        occurred_at=now,
        traceparent=traceparent or cause.traceparent,
        deadline=cause.deadline,
        llm_calls_remaining=max(0, cause.llm_calls_remaining - llm_calls_used),
        origin=cause.origin,
        lane=cause.lane,
        stage_timings=(*cause.stage_timings, timing),
        payload=payload,
    )


def new_message(cls: type[M], payload: Any, *, correlation_id: str | None = None,
                causation_id: str | None = None, message_id: str | None = None) -> M:
    """A non-turn message (ingest/corpus chain)."""
    mid = message_id or new_id()
    return cls(
        schema_=cls.SCHEMA,
        message_id=mid,
        correlation_id=correlation_id or mid,
        causation_id=causation_id,
        occurred_at=utcnow(),
        payload=payload,
    )
