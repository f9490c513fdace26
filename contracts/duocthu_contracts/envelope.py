"""The envelope every bus message carries.

The envelope is what makes a turn replayable for audit: ``causation_id`` links
each message to the one that caused it, ``correlation_id`` ties a turn to the
HTTP request (and a conversation), and the deadline and LLM budget travel with
the turn so that no stage can spend more than the turn has left.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from duocthu_contracts.base import Frozen


class Lane(StrEnum):
    """``live`` turns reach users; ``shadow`` turns are audit replays and never do."""

    LIVE = "live"
    SHADOW = "shadow"


class StageTiming(Frozen):
    stage: str
    started_at: datetime
    finished_at: datetime
    ms: float = Field(ge=0)


def subject_of_schema(schema: str) -> str:
    """The NATS subject a message of ``schema`` travels on: ``rag.turn.requested/1`` -> ``rag.v1.turn.requested``."""
    name, _, version = schema.partition("/")
    domain, _, rest = name.partition(".")
    return f"{domain}.v{version.partition('.')[0]}.{rest}"


class Message(Frozen):
    """Fields shared by every message; a concrete message fixes its ``SCHEMA``.

    ``schema`` is ``<name>/<major>[.<minor>]``.  Minor versions only add
    optional fields, so consumers ignore unknown fields; a new major version
    is rejected by consumers that do not know it.  ``SUBJECT`` is the NATS
    subject of the live lane, derived from the schema unless a class names
    its own; a message the topology table (``topology.py``) marks addressed
    goes to one gateway replica, with that replica's origin token appended.
    """

    model_config = ConfigDict(populate_by_name=True)

    SCHEMA: ClassVar[str] = ""
    SUBJECT: ClassVar[str] = ""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.SCHEMA and "SUBJECT" not in cls.__dict__:
            cls.SUBJECT = subject_of_schema(cls.SCHEMA)

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
