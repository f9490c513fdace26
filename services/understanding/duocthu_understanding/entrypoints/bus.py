"""The understanding stage's bus handler: a question in, a frame for retrieval or the turn's end out."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import TurnRequested, TurnUnderstood, TurnUnderstoodPayload
from duocthu_providers import TurnBudget
from duocthu_runtime import StageContext
from duocthu_understanding import metrics
from duocthu_understanding.application.understanding import Understanding


class UnderstandingHandler:
    def __init__(self, understanding: Understanding) -> None:
        self.understanding = understanding

    async def __call__(self, message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        payload = message.payload
        budget = TurnBudget(deadline=message.deadline, calls_left=message.llm_calls_remaining)
        understood = await self.understanding.understand(payload, budget)
        if understood is None:
            metrics.FRAMES.labels("none", Reason.CORPUS_NOT_READY).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.CORPUS_NOT_READY, detail="no live corpus release")]
        outcome, calls = understood.outcome, understood.llm_calls_used
        frame = outcome.frame
        if outcome.ends_turn:
            assert outcome.decision is not None and outcome.reason is not None
            metrics.FRAMES.labels(frame.turn_type, outcome.reason).inc()
            return [ctx.complete(outcome.decision, outcome.reason, llm_calls_used=calls, frame=frame,
                                 answer=_shown(outcome.reason, outcome.message), quick_replies=outcome.quick_replies,
                                 resolved_drug_ids=[d.drug_id for d in frame.drugs], detail=outcome.message)]
        metrics.FRAMES.labels(frame.turn_type, "understood").inc()
        return [ctx.derive(TurnUnderstood, TurnUnderstoodPayload(
            query=payload.query, conversation_id=payload.conversation_id, response_mode=payload.response_mode,
            frame=frame), llm_calls_used=calls)]


def _shown(reason: Reason, message: str) -> str:
    """Only clarifying questions are shown as the answer text; abstentions are explained by the gateway."""
    return message if reason in (Reason.PATIENT_INFO_REQUIRED, Reason.DRUG_REQUIRED) else ""
