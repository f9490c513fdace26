"""A conversation as the gateway remembers it: the turns it answered, and what the next turn needs of them.

The last normalised frame, the recent history and the clarify streak go out
with every ``turn.requested``; they are computed here from stored turns, so
a follow-up works across restarts and on any gateway replica.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from duocthu_contracts.decisions import Decision
from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.http import RagQueryResponse
from duocthu_contracts.messages import HistoryTurn, TurnCompleted


@dataclass(frozen=True)
class ConversationState:
    history: list[HistoryTurn]
    last_frame: QueryFrame | None
    clarify_streak: int


#: A turn without a conversation, or whose conversation could not be read.
NO_CONVERSATION = ConversationState(history=[], last_frame=None, clarify_streak=0)


@dataclass(frozen=True)
class StoredTurn:
    """One answered turn as its conversation remembers it."""

    turn_id: str
    query: str
    decision: str
    reason: str
    turn_type: str | None
    resolved_drug_ids: list[str]
    frame: QueryFrame | None
    at: datetime


@dataclass(frozen=True)
class TurnRecord(StoredTurn):
    """One answered turn as it is written: what its conversation remembers, and the retrieval trace
    (seed 003 §21.4)."""

    conversation_id: str | None
    evidence_ids: list[str]
    cited_evidence_ids: list[str]
    correlation_id: str
    otel_trace_id: str | None
    stage_timings: list[dict[str, Any]]
    response: dict[str, Any]
    client_key: str | None = None  # SHA-256 of the token of the client that asked (domain/ownership.py)


def turn_record(response: RagQueryResponse, completed: TurnCompleted | None, query: str,
                at: datetime, client_key: str | None = None) -> TurnRecord:
    """What is stored of a turn answered ``at``: the response the user got and, if the chain completed, its trace."""
    payload = completed.payload if completed is not None else None
    frame = payload.frame if payload is not None else None
    return TurnRecord(
        turn_id=response.trace_id, conversation_id=response.conversation_id, query=query, at=at,
        decision=response.decision, reason=response.reason,
        turn_type=frame.turn_type if frame is not None else None,
        resolved_drug_ids=list(response.resolved_drug_ids), frame=frame,
        evidence_ids=[e.evidence_id for e in payload.evidence] if payload is not None else [],
        cited_evidence_ids=[c.evidence_id for c in response.citations],
        correlation_id=response.correlation_id, otel_trace_id=response.otel_trace_id,
        stage_timings=[t.model_dump(mode="json") for t in response.stage_timings],
        response=response.model_dump(mode="json"), client_key=client_key,
    )


def conversation_state(turns: Sequence[StoredTurn], history_turns: int) -> ConversationState:
    """The state of a conversation from its stored turns (oldest first): the last ``history_turns`` turns as
    history, the last frame any turn had, and how many turns in a row ended in a clarifying question."""
    history = [HistoryTurn(query=t.query, decision=Decision(t.decision), reason=t.reason, turn_type=t.turn_type,
                           resolved_drug_ids=list(t.resolved_drug_ids), at=t.at)
               for t in turns[-history_turns:]] if history_turns else []
    last = next((t.frame for t in reversed(turns) if t.frame is not None), None)
    streak = 0
    for turn in reversed(turns):
        if turn.decision != Decision.CLARIFY:
            break
        streak += 1
    return ConversationState(history, last, streak)
