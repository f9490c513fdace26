"""The understanding stage's handler: a question in, a frame for retrieval or the turn's end out."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import TurnRequested, TurnUnderstood, TurnUnderstoodPayload
from duocthu_runtime.bus.stage import StageContext
from duocthu_understanding import metrics
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.domain.frame_builder import Conversation, understand


class UnderstandingHandler:
    def __init__(self, catalog: LiveCatalog) -> None:
        self.catalog = catalog

    async def __call__(self, message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        payload = message.payload
        if self.catalog.catalog is None or self.catalog.matcher is None:
            metrics.FRAMES.labels("none", Reason.CORPUS_NOT_READY).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.CORPUS_NOT_READY, detail="no live corpus release")]
        conversation = Conversation(payload.history, payload.last_frame, payload.clarify_streak)
        outcome = understand(payload.query, self.catalog.catalog, self.catalog.matcher, conversation)
        frame = outcome.frame
        if outcome.ends_turn:
            assert outcome.decision is not None and outcome.reason is not None
            metrics.FRAMES.labels(frame.turn_type, outcome.reason).inc()
            return [ctx.complete(outcome.decision, outcome.reason, frame=frame, answer=_message(outcome.reason,
                                 outcome.message), quick_replies=outcome.quick_replies,
                                 resolved_drug_ids=[d.drug_id for d in frame.drugs], detail=outcome.message)]
        metrics.FRAMES.labels(frame.turn_type, "understood").inc()
        return [ctx.derive(TurnUnderstood, TurnUnderstoodPayload(
            query=payload.query, conversation_id=payload.conversation_id, response_mode=payload.response_mode,
            frame=frame))]


def _message(reason: Reason, message: str) -> str:
    """Only clarifying questions are shown as the answer text; abstentions are explained by the gateway."""
    return message if reason in (Reason.PATIENT_INFO_REQUIRED, Reason.DRUG_REQUIRED) else ""
