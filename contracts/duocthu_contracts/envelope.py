"""The envelope every bus message carries.

The envelope is what makes a turn replayable for audit: ``causation_id`` links
each message to the one that caused it, ``correlation_id`` ties a turn to the
HTTP request (and a conversation), and the deadline and LLM budget travel with
the turn so that no stage can spend more than the turn has left.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field


class Lane(StrEnum):
    """``live`` turns reach users; ``shadow`` turns are audit replays and never do."""

    LIVE = "live"
    SHADOW = "shadow"


class StageTiming(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: str
    started_at: datetime
    finished_at: datetime
    ms: float = Field(ge=0)


class Message(BaseModel):
    """Fields shared by every message; concrete messages fix ``SCHEMA``.

    ``schema`` is ``<name>/<major>[.<minor>]``.  Minor versions only add
    optional fields, so consumers ignore unknown fields; a new major version
    is rejected by consumers that do not know it.
    """

    model_config = ConfigDict(populate_by_name=True, extra="ignore", frozen=True)

    SCHEMA: ClassVar[str] = ""

    schema_: str = Field(alias="schema")
    message_id: str = Field(min_length=1, max_length=64)
    correlation_id: str = Field(min_length=1, max_length=128)
    causation_id: str | None = Field(default=None, max_length=64)
    occurred_at: datetime
    traceparent: str | None = Field(default=None, max_length=128)


class TurnMessage(Message):
    """A message that belongs to one question-answering turn."""

    turn_id: str = Field(min_length=1, max_length=64)
    deadline: datetime
    llm_calls_remaining: int = Field(ge=0)
    origin: str = Field(min_length=1, max_length=128, description="gateway replica that holds the HTTP request")
    lane: Lane = Lane.LIVE
    stage_timings: tuple[StageTiming, ...] = ()
