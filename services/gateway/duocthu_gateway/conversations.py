"""Conversation state around a turn, fail-open: the store never decides whether a user gets an answer.

Before a turn: the recent history, the last normalized frame and the clarify
streak go out with ``turn.requested`` (a read failure sends none and counts).
After it: the turn is written as history and retrieval trace (a write
failure still returns the answer and counts).
"""

from __future__ import annotations

from duocthu_contracts.http import RagQueryResponse
from duocthu_contracts.messages import TurnCompleted
from duocthu_gateway import metrics
from duocthu_gateway.adapters.store import ConversationState, Store, TurnRecord
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)
EMPTY = ConversationState(history=[], last_frame=None, clarify_streak=0)


class Conversations:
    def __init__(self, store: Store | None, history_turns: int) -> None:
        self.store = store
        self.history_turns = history_turns

    async def state(self, conversation_id: str | None) -> ConversationState:
        if self.store is None or not conversation_id:
            return EMPTY
        try:
            return await self.store.conversation(conversation_id, self.history_turns)
        except Exception:
            metrics.HISTORY_READ_FAILURES.inc()
            log.exception("history_read_failed", conversation_id=conversation_id)
            return EMPTY

    async def record(self, response: RagQueryResponse, completed: TurnCompleted | None, query: str) -> None:
        if self.store is None:
            return
        payload = completed.payload if completed is not None else None
        frame = payload.frame if payload is not None else None
        record = TurnRecord(
            turn_id=response.trace_id, conversation_id=response.conversation_id, query=query,
            decision=response.decision, reason=response.reason,
            turn_type=frame.turn_type if frame is not None else None,
            resolved_drug_ids=list(response.resolved_drug_ids), frame=frame,
            evidence_ids=[e.evidence_id for e in payload.evidence] if payload is not None else [],
            cited_evidence_ids=[c.evidence_id for c in response.citations],
            correlation_id=response.correlation_id, otel_trace_id=response.otel_trace_id,
            stage_timings=[t.model_dump(mode="json") for t in response.stage_timings],
            response=response.model_dump(mode="json"),
        )
        try:
            await self.store.record_turn(record)
        except Exception:
            metrics.TRACE_WRITE_FAILURES.inc()
            log.exception("trace_write_failed", turn_id=response.trace_id)
