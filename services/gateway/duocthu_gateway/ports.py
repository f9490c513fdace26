"""What the gateway's use cases and HTTP entry points need from the outside, as Protocols.

Every port names its failure: the store raises
:class:`~duocthu_gateway.errors.StoreUnavailable`, the monograph client
:class:`~duocthu_gateway.errors.RetrievalUnavailable`, the turn exchange
:class:`~duocthu_gateway.errors.TurnNotPublished`; the rate limit and the
readiness checks never raise (they fail open, and report).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from duocthu_contracts.decisions import Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.http import RagQueryResponse
from duocthu_contracts.messages import (
    IngestJobProgressPayload,
    TurnCompleted,
    TurnProgress,
    TurnRequested,
    TurnVerified,
)
from duocthu_contracts.rpc import DrugListReply, IndexStatusReply, SectionListReply, SectionTextReply
from duocthu_contracts.sections import SectionKey
from duocthu_gateway.domain.conversation import ConversationState, StoredTurn, TurnRecord
from duocthu_gateway.domain.timing import TurnTimings

BBox = tuple[float, float, float, float]


class TurnExchange(Protocol):
    """Hands a turn to the pipeline and waits for its completion, addressed to this replica."""

    async def submit(self, request: TurnRequested, timeout_s: float,
                     timings: TurnTimings | None = None) -> TurnCompleted | None:
        """Publish ``request`` and wait for its completion; ``None`` when the deadline passes.

        ``timings`` gets ``puback`` (publish until JetStream stored the turn) and ``completion`` (the wait
        after it)."""
        ...

    def watch(self, turn_id: str) -> asyncio.Queue[TurnProgress]:
        """Stage status lines of ``turn_id`` from now on."""
        ...

    def unwatch(self, turn_id: str, queue: asyncio.Queue[TurnProgress]) -> None: ...


class SealChecker(Protocol):
    """The verifier's public keys (configuration), checking the seal of a turn's end it sealed."""

    def problem(self, verified: TurnVerified) -> str | None:
        """Why the seal of ``verified`` does not hold over what it shows (``unknown_key``, ``bad_signature``,
        ``malformed``), or None when it does."""
        ...


class TurnStore(Protocol):
    """Conversation turns (history, last frame, retrieval trace) and feedback."""

    async def record_turn(self, record: TurnRecord) -> None: ...

    async def recent(self, conversation_id: str, limit: int) -> list[StoredTurn]:
        """The conversation's last ``limit`` turns, oldest first."""
        ...

    async def conversation(self, conversation_id: str, history_turns: int) -> ConversationState: ...

    async def has_turn(self, turn_id: str) -> bool: ...

    async def answered(self, correlation_id: str, client_key: str, query: str,
                       conversation_id: str | None) -> RagQueryResponse | None:
        """The response recorded for this client's question under ``correlation_id``, if any."""
        ...

    async def conversation_owners(self, conversation_id: str) -> set[str | None]:
        """The client keys the conversation's turns were written with (empty: no such conversation yet)."""
        ...

    async def turn_owner(self, turn_id: str) -> tuple[bool, str | None]:
        """Whether the turn exists, and the client key it was written with."""
        ...

    async def add_feedback(self, trace_id: str, helpful: bool, comment: str | None) -> None: ...


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    window_s: int
    retry_after_s: int = 0


class RateLimit(Protocol):
    """Queries per client, counted across every gateway replica."""

    async def check(self, client: str, now: float | None = None) -> RateDecision: ...


class Monographs(Protocol):
    """Monograph mode, answered by a retrieval replica (the only process that opens the index)."""

    async def drugs(self) -> DrugListReply: ...

    async def sections(self, drug_id: str) -> SectionListReply: ...

    async def section_text(self, drug_id: str, section_key: SectionKey) -> SectionTextReply: ...

    async def index_status(self) -> IndexStatusReply: ...


class IngestJobs(Protocol):
    """The latest progress of recent ingest jobs (what the admin view shows)."""

    def recent(self) -> list[tuple[IngestJobProgressPayload, datetime]]: ...


class Crops(Protocol):
    """Page regions of the source PDF as PNG (a citation's region, a table shown instead of text)."""

    def render(self, page: int, bbox: BBox) -> tuple[bytes, bool]:
        """PNG bytes of the region and whether they came from the cache; raises ``CropError``."""
        ...


class Publisher(Protocol):
    async def publish(self, message: Message) -> bool: ...


@dataclass(frozen=True)
class Blocker:
    """Why no turn can complete right now: the bus is down, or a stage (named) has no live replica."""

    reason: Reason
    stage: str | None = None


class Availability(Protocol):
    """Checked before a turn is sent and after one timed out, so the abstain reason says what happened."""

    async def blocker(self) -> Blocker | None: ...


class Readiness(Protocol):
    """Whether this replica can answer: the bus, the streams, a ready replica of every stage."""

    async def check(self) -> tuple[bool, dict[str, str]]: ...
